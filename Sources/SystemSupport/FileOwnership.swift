#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Keeping a replaced file's owner and group on its replacement.
///
/// A file written anew and renamed over an old one belongs to whoever wrote
/// it; an edit by root would hand a user's file to root. Apple's `plutil`
/// and `NSFileManager`'s safe save give the new file the old one's owner and
/// group where the process may, and so does every writer here.
package enum FileOwnership {
    /// Gives the item open as `descriptor` the user `owner` and group
    /// `group` where it has other ones. Only root may give a file away;
    /// another process may still set a group it belongs to. When the process
    /// may not (`EPERM`), the item keeps the process's owner and group, as
    /// with Apple's tools.
    ///
    /// Call it before setting permissions: `chown` clears set-user-ID bits.
    /// The corresponding C function is `fchown`.
    ///
    /// - Returns: the `errno` of a failure other than `EPERM`, else nil.
    package static func keep(owner: uid_t, group: gid_t, on descriptor: Int32) -> Int32? {
        var status = stat()
        guard fstat(descriptor, &status) == 0 else { return errno }
        if status.st_uid == owner, status.st_gid == group { return nil }
        if fchown(descriptor, owner, group) == 0 { return nil }
        // Not root: the group alone may still be one the process is in.
        if errno == EPERM, status.st_gid != group, fchown(descriptor, status.st_uid, group) == 0 { return nil }
        return errno == EPERM ? nil : errno
    }

    /// As `keep(owner:group:on:)`, for the symbolic link `name` in the
    /// directory open as `directory` (the link itself, never where it points).
    /// The corresponding C function is `fchownat` with `AT_SYMLINK_NOFOLLOW`.
    package static func keep(owner: uid_t, group: gid_t, ofLinkNamed name: String, in directory: Int32) -> Int32? {
        var status = stat()
        // The name as the package writer's calls pass it, not as `RawFileName` bytes.
        guard fstatat(directory, name, &status, AT_SYMLINK_NOFOLLOW) == 0 else { return errno }
        if status.st_uid == owner, status.st_gid == group { return nil }
        if fchownat(directory, name, owner, group, AT_SYMLINK_NOFOLLOW) == 0 { return nil }
        if errno == EPERM, status.st_gid != group, fchownat(directory, name, status.st_uid, group, AT_SYMLINK_NOFOLLOW) == 0 { return nil }
        return errno == EPERM ? nil : errno
    }
}
