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

#endif
