import CFileSystem

#if canImport(Glibc)
import Glibc
private let systemRename = Glibc.rename
#elseif canImport(Musl)
import Musl
private let systemRename = Musl.rename
#elseif canImport(Darwin)
import Darwin
private let systemRename = Darwin.rename
#endif

/// What `stat` says of a file that tells whether it was replaced or
/// rewritten since: device, inode, size and modification time to the
/// nanosecond.
///
/// A read-modify-write takes the stamp of the file before reading it and
/// hands it to `FileStamp.replace(_:over:expecting:)`, which refuses to put
/// the new version in place over any other file: a writer that does not
/// take `ItemLock` (a sync tool renaming its copy into place) is noticed,
/// never silently overwritten.
package struct FileStamp: Equatable, Sendable {
    package var device: UInt64
    package var inode: UInt64
    package var size: Int64
    package var seconds: Int64
    package var nanoseconds: Int64

    /// The stamp of the object `info` describes.
    package init(_ info: FileInfo) {
        device = info.device
        inode = info.inode
        size = info.size
        seconds = info.modificationSeconds
        nanoseconds = info.modificationNanoseconds
    }

    /// The stamp of the file at `path` (a final symbolic link followed), or
    /// nil when nothing is there.
    package init?(path: String) {
        guard let info = try? FileInfo.of(path: path) else { return nil }
        self.init(info)
    }

    /// The stamp of the item at `path` itself, a link not followed.
    package init?(itemAt path: String) {
        guard let info = try? FileInfo.of(path: path, followingLink: false) else { return nil }
        self.init(info)
    }

    /// Why `replace(_:over:expecting:)` did not put the new file in place.
    package struct ReplaceFailure: Error {
        /// The file at the target is not the one the caller read: another
        /// program replaced or rewrote it. The target is left as that
        /// program left it and the new file is removed.
        package let changedSinceRead: Bool
        /// `errno` of the failed call otherwise.
        package let systemError: Int32
    }

    /// Renames `temporary` over `target` (both in one folder), but only
    /// while `target` is still the file `expected` describes; with no
    /// expectation, a plain `rename(2)`.
    ///
    /// The check is made before, and again after, an atomic exchange of the
    /// two names (`renameat2(RENAME_EXCHANGE)`): what the exchange took out
    /// of place must be the file that was read. When it is not, the other
    /// program's file is put back and the new one removed. Where the file
    /// system cannot exchange, the check before a plain rename is all.
    ///
    /// - Throws: `ReplaceFailure`; the temporary file is removed when
    ///   `changedSinceRead`, and left for the caller otherwise.
    package static func replace(_ temporary: String, over target: String, expecting expected: FileStamp?) throws(ReplaceFailure) {
        guard let expected else {
            guard rename(temporary, target) else { throw ReplaceFailure(changedSinceRead: false, systemError: errno) }
            return
        }
        guard FileStamp(path: target) == expected else {
            RawFileName.withPath(temporary) { _ = unlink($0) }
            throw ReplaceFailure(changedSinceRead: true, systemError: 0)
        }
        let written = FileStamp(itemAt: temporary)
        let exchanged = RawFileName.withPath(temporary) { from in
            RawFileName.withPath(target) { to in ictkit_exchange_names(AT_FDCWD, from, AT_FDCWD, to) }
        }
        guard exchanged == 0 else {
            switch errno {
            case EINVAL, ENOSYS, ENOTSUP, EXDEV, EPERM:
                guard rename(temporary, target) else { throw ReplaceFailure(changedSinceRead: false, systemError: errno) }
                return
            default: throw ReplaceFailure(changedSinceRead: false, systemError: errno)
            }
        }
        // The temporary name now holds what was in place.
        if FileStamp(itemAt: temporary) == expected {
            RawFileName.withPath(temporary) { _ = unlink($0) }
            return
        }
        // Another program put its file in place between the check and the
        // exchange: give its file its place back, unless it has already
        // replaced ours too.
        if let written, FileStamp(itemAt: target) == written {
            _ = RawFileName.withPath(temporary) { from in
                RawFileName.withPath(target) { to in ictkit_exchange_names(AT_FDCWD, from, AT_FDCWD, to) }
            }
        }
        RawFileName.withPath(temporary) { _ = unlink($0) }
        throw ReplaceFailure(changedSinceRead: true, systemError: 0)
    }

    private static func rename(_ from: String, _ to: String) -> Bool {
        RawFileName.withPath(from) { from in RawFileName.withPath(to) { to in systemRename(from, to) } } == 0
    }
}
