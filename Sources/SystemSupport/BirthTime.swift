import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension FileInfo {
    /// When the object at `path` was made, in nanoseconds since 1970, where
    /// the file system keeps it (Linux 4.11's `statx` on ext4, btrfs, xfs,
    /// tmpfs; macOS's birth time); nil where it does not, or when nothing
    /// can be found there. `followingLink` as for `of(path:followingLink:)`.
    /// The corresponding C functions are `statx` and `fstatat`.
    package static func birthTime(ofPath path: String, followingLink: Bool = true) -> Int64? {
        var seconds: CLongLong = 0
        var nanoseconds: CLong = 0
        let result = RawFileName.withPath(path) { ictkit_birth_time(AT_FDCWD, $0, followingLink ? 1 : 0, &seconds, &nanoseconds) }
        guard result == 1 else { return nil }
        return Int64(seconds) &* 1_000_000_000 &+ Int64(nanoseconds)  // Wraps only past the year 2262.
    }
}
