#ifndef ICTKIT_CFILESYSTEM_SHIM_H
#define ICTKIT_CFILESYSTEM_SHIM_H

// The file-system calls Swift cannot import directly: variadic `syscall` and
// `ioctl`, and declarations glibc only makes with _GNU_SOURCE. Each is one
// static inline function, so nothing here needs linking.

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

/// UTIME_OMIT, a macro Swift does not import: "leave this time as it is".
static inline long ictkit_utime_omit(void) { return UTIME_OMIT; }

#if defined(__linux__)
#include <sys/inotify.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>

/// renameat2(2) with RENAME_EXCHANGE: swaps two names in one step.
static inline int ictkit_exchange_names(int fromDirectory, const char *from, int toDirectory, const char *to) {
    return (int)syscall(SYS_renameat2, fromDirectory, from, toDirectory, to, 2 /* RENAME_EXCHANGE */);
}

/// renameat2(2) with RENAME_NOREPLACE: fails with EEXIST instead of replacing.
static inline int ictkit_rename_without_replacing(int fromDirectory, const char *from, int toDirectory, const char *to) {
    return (int)syscall(SYS_renameat2, fromDirectory, from, toDirectory, to, 1 /* RENAME_NOREPLACE */);
}

/// ioctl(2) FICLONE: makes `destination` share `source`'s blocks (a reflink).
static inline int ictkit_clone_file(int destination, int source) {
    return ioctl(destination, 0x40049409 /* FICLONE = _IOW(0x94, 9, int) */, source);
}

/// copy_file_range(2) from the current offsets: the kernel copies, no bytes
/// pass through user space.
static inline long ictkit_copy_file_range(int source, int destination, unsigned long count) {
    return (long)syscall(SYS_copy_file_range, source, NULL, destination, NULL, count, 0);
}

/// sync_file_range(2) SYNC_FILE_RANGE_WRITE: starts writing the file's dirty
/// pages to disk without waiting, so a later fsync finds less to do.
static inline int ictkit_start_writeback(int file) {
    return (int)syscall(SYS_sync_file_range, file, 0L, 0L, 2 /* SYNC_FILE_RANGE_WRITE */);
}

/// sync_file_range(2) with WAIT_BEFORE | WRITE | WAIT_AFTER: returns once the
/// file's bytes are on disk (its metadata is left to fsync).
static inline int ictkit_wait_for_writeback(int file) {
    return (int)syscall(SYS_sync_file_range, file, 0L, 0L, 7);
}

/// prctl(2) PR_SET_NAME: names the calling thread (the first 15 bytes), as
/// `top -H` and debuggers show it. prctl is variadic, so Swift cannot call it.
static inline int ictkit_name_this_thread(const char *name) {
    return (int)syscall(SYS_prctl, 15 /* PR_SET_NAME */, name, 0L, 0L, 0L);
}

/// syncfs(2): flushes everything pending on the file system holding `file`.
static inline int ictkit_sync_file_system(int file) {
    return (int)syscall(SYS_syncfs, file);
}

#elif defined(__APPLE__)

/// renameatx_np(2) with RENAME_SWAP: swaps two names in one step.
static inline int ictkit_exchange_names(int fromDirectory, const char *from, int toDirectory, const char *to) {
    return renameatx_np(fromDirectory, from, toDirectory, to, RENAME_SWAP);
}

/// renameatx_np(2) with RENAME_EXCL: fails with EEXIST instead of replacing.
static inline int ictkit_rename_without_replacing(int fromDirectory, const char *from, int toDirectory, const char *to) {
    return renameatx_np(fromDirectory, from, toDirectory, to, RENAME_EXCL);
}

/// No early writeback on macOS; the final fsync does it all.
static inline int ictkit_start_writeback(int file) { (void)file; return 0; }

/// No syncfs on macOS: fails with ENOSYS, and each item is flushed instead.
static inline int ictkit_sync_file_system(int file) { (void)file; errno = ENOSYS; return -1; }

/// No separate data writeback on macOS; fsync does it.
static inline int ictkit_wait_for_writeback(int file) { (void)file; return 0; }

#endif

/// Removes `name` in `parent` and, for a directory, everything below it,
/// without following symbolic links; best effort (what cannot be removed
/// stays). Makes only async-signal-safe system calls and allocates nothing,
/// so a signal handler may call it: each directory is read in passes
/// through one static buffer, files unlinked, and one directory met per
/// pass is emptied (recursively, at most 128 levels deep) before the next
/// pass rereads the directory from its start. Not reentrant: the caller
/// keeps two calls from overlapping (the handlers block one another); other
/// callers use `ictkit_remove_tree_reporting` with a buffer of their own.
/// Only a directory is opened up (chmod 0700) to be emptied: a link is
/// never followed, and a file may share its inode (a hard link) with one
/// that stays. This is ICTKit's one tree remover: Swift calls it too
/// (`Directory.removeTree`, through `ictkit_remove_tree_reporting`).
static inline void ictkit_remove_tree(int parent, const char *name);

/// The size of the buffer a directory is read through: for
/// `ictkit_remove_tree_reporting`'s, aligned to 8 bytes.
#define ICTKIT_REMOVE_TREE_BUFFER_SIZE 16384

/// As `ictkit_remove_tree`, at most `max_depth` levels deep, reading
/// directories through `buffer` (ICTKIT_REMOVE_TREE_BUFFER_SIZE bytes,
/// aligned to 8; the caller's own, so calls on several threads do not
/// meet), and saying why what stayed stayed: returns 0 when `name` is gone
/// (or was never there), else the errno of the first call that failed
/// (ENOTEMPTY for a folder nested deeper than `max_depth`). errno is kept.
static inline int ictkit_remove_tree_reporting(int parent, const char *name, int max_depth, char *buffer);

#if defined(__linux__)
#include <dirent.h>
#include <string.h>
#include <sys/syscall.h>

/// One directory entry as getdents64(2) gives it.
struct ictkit_directory_entry64 {
    unsigned long long inode;
    long long offset;
    unsigned short length;
    unsigned char type;
    char name[];
};

/// One pass over the open directory: unlinks every entry that is not a
/// directory and copies the name of one directory into `directoryName`.
/// Returns how many entries it saw (0: the directory is empty), -1 on error.
static inline int ictkit_empty_directory_pass(int directory, char directoryName[256], char *buffer) {
    int seen = 0;
    directoryName[0] = 0;
    if (lseek(directory, 0, SEEK_SET) != 0) return -1;
    for (;;) {
        long count = syscall(SYS_getdents64, directory, buffer, ICTKIT_REMOVE_TREE_BUFFER_SIZE);
        if (count < 0) return -1;
        if (count == 0) return seen;
        for (long offset = 0; offset < count;) {
            struct ictkit_directory_entry64 *entry = (struct ictkit_directory_entry64 *)(buffer + offset);
            offset += entry->length;
            if (strcmp(entry->name, ".") == 0 || strcmp(entry->name, "..") == 0) continue;
            seen += 1;
            if (entry->type != DT_DIR && unlinkat(directory, entry->name, 0) == 0) continue;
            if (directoryName[0] == 0 && strlen(entry->name) < 256) strcpy(directoryName, entry->name);
        }
    }
}

#elif defined(__APPLE__)
#include <string.h>
#include <sys/attr.h>
#include <sys/vnode.h>

/// `ictkit_empty_directory_pass` through getattrlistbulk(2), which, unlike
/// readdir, is a system call and allocates nothing (it gives no `.` or `..`).
static inline int ictkit_empty_directory_pass(int directory, char directoryName[256], char *buffer) {
    struct attrlist request = {0};
    request.bitmapcount = ATTR_BIT_MAP_COUNT;
    request.commonattr = ATTR_CMN_RETURNED_ATTRS | ATTR_CMN_NAME | ATTR_CMN_OBJTYPE;
    int seen = 0;
    directoryName[0] = 0;
    if (lseek(directory, 0, SEEK_SET) != 0) return -1;
    for (;;) {
        int count = getattrlistbulk(directory, &request, buffer, ICTKIT_REMOVE_TREE_BUFFER_SIZE, 0);
        if (count < 0) return -1;
        if (count == 0) return seen;
        char *entry = buffer;
        for (int index = 0; index < count; index++) {
            unsigned int length = *(unsigned int *)entry;
            char *field = entry + sizeof(unsigned int) + sizeof(attribute_set_t);
            attrreference_t *reference = (attrreference_t *)field;
            const char *name = field + reference->attr_dataoffset;
            fsobj_type_t type = *(fsobj_type_t *)(field + sizeof(attrreference_t));
            entry += length;
            seen += 1;
            if (type != VDIR && unlinkat(directory, name, 0) == 0) continue;
            if (directoryName[0] == 0 && strlen(name) < 256) strcpy(directoryName, name);
        }
    }
}
#endif

/// Keeps the first failure: `code` unless one is already kept.
static inline void ictkit_remove_tree_failed(int *failure, int code) {
    if (*failure == 0) *failure = code;
}

static inline void ictkit_remove_tree_below(int parent, const char *name, int depth, int max_depth, char *buffer, int *failure) {
    if (unlinkat(parent, name, 0) == 0 || errno == ENOENT) return;
    int unlink_error = errno;
    struct stat status;
    if (fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) != 0) {
        if (errno != ENOENT) ictkit_remove_tree_failed(failure, errno);
        return;
    }
    // Not a directory, and it will not unlink: what stays says why.
    if (!S_ISDIR(status.st_mode)) {
        ictkit_remove_tree_failed(failure, unlink_error);
        return;
    }
    // Too deep: the parent's removal fails with ENOTEMPTY, which is kept.
    if (depth > max_depth) return;
    // A read-only directory's entries cannot be removed by its owner.
    (void)fchmodat(parent, name, 0700, 0);
    int directory = openat(parent, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (directory < 0) {
        ictkit_remove_tree_failed(failure, errno);
        return;
    }
    char child[256];
    int seen;
    // Each pass removes every file it sees and then one directory; a
    // directory that will not go ends the removal, so this always ends.
    while ((seen = ictkit_empty_directory_pass(directory, child, buffer)) > 0) {
        if (child[0] == 0) continue;
        ictkit_remove_tree_below(directory, child, depth + 1, max_depth, buffer, failure);
        if (unlinkat(directory, child, AT_REMOVEDIR) != 0 && errno != ENOENT) {
            ictkit_remove_tree_failed(failure, errno);
            break;
        }
    }
    if (seen < 0) ictkit_remove_tree_failed(failure, errno);
    close(directory);
    if (unlinkat(parent, name, AT_REMOVEDIR) != 0 && errno != ENOENT) ictkit_remove_tree_failed(failure, errno);
}

static inline void ictkit_remove_tree(int parent, const char *name) {
    // The signal handlers' own buffer: the handlers block one another.
    static _Alignas(8) char buffer[ICTKIT_REMOVE_TREE_BUFFER_SIZE];
    (void)ictkit_remove_tree_reporting(parent, name, 128, buffer);
}

static inline int ictkit_remove_tree_reporting(int parent, const char *name, int max_depth, char *buffer) {
    int saved = errno;
    int failure = 0;
    ictkit_remove_tree_below(parent, name, 0, max_depth, buffer, &failure);
    struct stat status;
    int stayed = fstatat(parent, name, &status, AT_SYMLINK_NOFOLLOW) == 0;
    errno = saved;
    if (!stayed) return 0;
    return failure != 0 ? failure : ENOTEMPTY;
}

/// An item's birth time, where the file system keeps it: statx(2)'s
/// `stx_btime` on Linux (read from the kernel's fixed `struct statx`
/// layout, so no header that may clash with glibc's is needed),
/// `st_birthtimespec` on macOS. `follow` 0 describes a last symbolic link
/// itself. Returns 1 with the time set, 0 when the file system does not
/// keep it (or statx is not there), -1 with errno when the item cannot be
/// examined.
static inline int ictkit_birth_time(int directory, const char *path, int follow, long long *seconds, long *nanoseconds) {
#if defined(__linux__) && defined(SYS_statx)
    _Alignas(8) unsigned char buffer[256];
    // STATX_BTIME (0x800); AT_SYMLINK_NOFOLLOW (0x100) unless following.
    if (syscall(SYS_statx, directory, path, follow ? 0 : 0x100, 0x800, buffer) != 0) return errno == ENOSYS ? 0 : -1;
    unsigned int mask;
    memcpy(&mask, buffer, sizeof mask);
    if ((mask & 0x800) == 0) return 0;
    // stx_btime is at byte 80: a 64-bit tv_sec, then a 32-bit tv_nsec.
    long long birthSeconds;
    unsigned int birthNanoseconds;
    memcpy(&birthSeconds, buffer + 80, sizeof birthSeconds);
    memcpy(&birthNanoseconds, buffer + 88, sizeof birthNanoseconds);
    *seconds = birthSeconds;
    *nanoseconds = (long)birthNanoseconds;
    return 1;
#elif defined(__APPLE__)
    struct stat status;
    if (fstatat(directory, path, &status, follow ? 0 : AT_SYMLINK_NOFOLLOW) != 0) return -1;
    *seconds = status.st_birthtimespec.tv_sec;
    *nanoseconds = status.st_birthtimespec.tv_nsec;
    return 1;
#else
    (void)directory; (void)path; (void)follow; (void)seconds; (void)nanoseconds;
    return 0;
#endif
}

#endif
