import SystemSupport
/// A short text that changes whenever the document or any of its versions
/// changes on disk, for refusing to resolve conflicts listed before a change
/// (`ict versions` prints it, `ict resolve --expect` checks it).
///
/// It hashes (64-bit FNV-1a) the path, device, inode, size, mode and
/// modification time of the document, of every version, and of every
/// entry inside each that is a package — never their bytes: a write that
/// kept an entry's inode, size and modification time to the nanosecond
/// would not show (no tool that syncs or saves documents writes so).
public enum VersionFingerprint {
    /// The fingerprint of the document at `path` and its versions, 16 hex digits.
    ///
    /// - Throws: as `DocumentVersion.otherVersionsOfItem(at:)`. Costs the
    ///   listings that finds versions plus one `lstat` per entry.
    package static func ofItem(at path: String) throws(DocumentVersionError) -> String {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        func mix(_ text: String) {
            for byte in text.utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3  // FNV-1a: wrapping multiplication is the algorithm
            }
            hash = (hash ^ 0xff) &* 0x100_0000_01b3
        }
        var seen = Set<String>()
        for version in [try DocumentVersion.currentVersionOfItem(at: path)] + (try DocumentVersion.otherVersionsOfItem(at: path)) {
            guard seen.insert(version.pathText).inserted else { continue }
            try walk(version.pathText) { path, status in
                mix("\(path) \(status.device) \(status.inode) \(status.size) \(status.mode) \(status.seconds).\(status.nanoseconds)")
            }
        }
        let hex = String(hash, radix: 16)
        return String(repeating: "0", count: 16 - hex.count) + hex
    }

    private static func walk(_ path: String, _ visit: (String, FileStatus) -> Void) throws(DocumentVersionError) {
        guard let status = try FileStatus.of(path) else { return }
        visit(path, status)
        guard status.isDirectory else { return }
        for name in try FileStatus.names(in: path) {
            try walk(PathName.join(path, name), visit)
        }
    }
}
