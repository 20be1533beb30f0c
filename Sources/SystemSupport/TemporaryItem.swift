import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// The one scheme for the temporary files and folders every writer makes
/// beside its target (`ict`'s output files, package saves, zips, package
/// restores, version resolving): how they are named, made, recognised,
/// removed when a signal ends the process, and removed when a killed
/// process left them behind.
///
/// A temporary of the target `NAME` is named `.NAME.ict-new-PID-RANDOM`
/// (hidden; PID the writer's process, RANDOM eight hex digits), or
/// `.NAME.ict-old-PID-RANDOM` for an old version moved aside on its way
/// out. Such a name is never longer than `NAME_MAX` (255 bytes), whatever
/// the target's length: a target name too long to fit is shortened by bytes
/// (at a character boundary) and followed by `~` and a hash of the whole
/// name, so two long targets sharing a beginning keep apart, and the marker
/// is then `.ict~` (`.SHORTENED~HASH.ict~new-PID-RANDOM`).
///
/// Every temporary made here is registered with `InterruptCleanup` until the
/// writer calls `finished`, so SIGINT, SIGTERM and SIGHUP remove it. One
/// that a SIGKILL or a crash left behind is removed by the next write of the
/// same target (`removeStale`) once its process is gone (its ID free, or
/// given to a process started after the temporary last changed); an old version
/// moved aside is put back instead when the target itself is missing.
package enum TemporaryItem {
    /// What a temporary holds.
    package enum Role: String, Sendable {
        /// Being written: the new version of the target.
        case new
        /// The target's old version, moved aside to be removed.
        case old
    }

    /// The longest file name (`NAME_MAX` on Linux and macOS).
    package static let maximumNameLength = 255
    private static let marker = Array(".ict-".utf8)
    private static let randomDigits = 8
    /// Bytes a temporary's name adds to the embedded target: the leading dot,
    /// `.ict-new-`, a process id of up to ten digits, `-` and the random part.
    private static let overhead = 1 + marker.count + 4 + 10 + 1 + randomDigits

    /// The marker after a target shortened in its temporaries' names
    /// (`.ict~new-…`): such a name does not carry the whole target.
    private static let shortenedMarker = Array(".ict~".utf8)

    /// The start of every temporary name of `target` in `role`: the dot, the
    /// target's name as it fits (`embeddedName`), the marker and the role.
    private static func prefix(_ target: [UInt8], _ role: Role) -> [UInt8] {
        let embedded = embeddedName(target)
        return Array(".".utf8) + embedded + (embedded == target ? marker : shortenedMarker) + Array("\(role.rawValue)-".utf8)
    }

    /// The target's name as its temporaries carry it: as it is when it fits,
    /// else its first bytes, `~` and 16 hex digits of a hash of all of it.
    package static func embeddedName(_ target: [UInt8]) -> [UInt8] {
        let room = maximumNameLength - overhead
        guard target.count > room else { return target }
        var keep = room - 17
        // Back to the start of a character: a UTF-8 continuation byte is 10xxxxxx.
        while keep > 0, target[keep] & 0xC0 == 0x80 { keep -= 1 }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325  // FNV-1a, 64 bits.
        for byte in target {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3  // `&*`: the hash is meant to wrap.
        }
        let digits = String(hash, radix: 16)
        return Array(target[..<keep]) + Array("~".utf8) + Array(String(repeating: "0", count: 16 - digits.count).utf8) + Array(digits.utf8)
    }

    /// A fresh temporary name for `target` (a file name, not a path; names
    /// not UTF-8 as `RawFileName` carries them), owned by this process.
    package static func name(for target: String, role: Role = .new) -> String {
        let random = String(UInt32.random(in: .min ... .max), radix: 16)
        let suffix = "\(getpid())-" + String(repeating: "0", count: randomDigits - random.count) + random
        return RawFileName.decoding(prefix(RawFileName.bytes(target), role) + Array(suffix.utf8))
    }

    /// The role and owning process of `entry` when it is a temporary of
    /// `target`, made by this scheme or one `ict` used before it
    /// (`.NAME.ict-PID-XXXXXX`, `.NAME.ict-replacing-PID`,
    /// `.NAME.saving-PID-HEX`, `.NAME.replaced-PID-HEX`, `NAME.partial-PID`).
    package static func owner(of entry: [UInt8], target: String) -> (role: Role, processID: Int32)? {
        let targetBytes = RawFileName.bytes(target)
        let current: [(prefix: [UInt8], role: Role, randomPart: Bool)] = [
            (prefix(targetBytes, .new), .new, true), (prefix(targetBytes, .old), .old, true),
        ]
        let earlier: [(prefix: [UInt8], role: Role, randomPart: Bool)] = [
            (Array(".".utf8) + targetBytes + marker, .new, true),
            (Array(".".utf8) + targetBytes + Array(".ict-replacing-".utf8), .new, false),
            (Array(".".utf8) + targetBytes + Array(".saving-".utf8), .new, true),
            (Array(".".utf8) + targetBytes + Array(".replaced-".utf8), .old, true),
            (targetBytes + Array(".partial-".utf8), .new, false),
        ]
        for (prefix, role, randomPart) in current + earlier where entry.starts(with: prefix) {
            let rest = entry[prefix.count...]
            let digits = rest.prefix { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) }
            guard !digits.isEmpty, digits.count <= 10, let processID = Int32(String(decoding: digits, as: UTF8.self)),
                processID > 0
            else { continue }
            let tail = rest[digits.endIndex...]
            if !randomPart, tail.isEmpty { return (role, processID) }
            let isRandom = { (byte: UInt8) in
                (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte)
                    || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
            }
            if randomPart, tail.first == UInt8(ascii: "-"), (2...9).contains(tail.count), tail.dropFirst().allSatisfy(isRandom) {
                return (role, processID)
            }
        }
        return nil
    }

    /// The target `entry` is a temporary of, when it is named by this scheme
    /// and carries the target's whole name (`.ict-`, not `.ict~`: not shortened).
    package static func target(of entry: [UInt8]) -> String? {
        guard entry.first == UInt8(ascii: "."),
            let markerStart = stride(from: entry.count - marker.count, to: 1, by: -1).first(where: { entry[$0...].starts(with: marker) })
        else { return nil }
        let target = RawFileName.decoding(entry[1..<markerStart])
        return owner(of: entry, target: target) != nil ? target : nil
    }

    /// Whether process `id` is gone: not this one, and `kill(id, 0)` finds no such process.
    package static func processIsGone(_ id: Int32) -> Bool {
        id != getpid() && kill(id, 0) != 0 && errno == ESRCH
    }

    /// Whether the process that made the temporary `entry` of `directory`
    /// (process `id`, by its name) is gone: no process has that ID, or the
    /// one that has it now started after the temporary last changed — the
    /// ID was given again to another process, since the writer started
    /// before it made the temporary and wrote it while it lived (Linux:
    /// the start time in `/proc`, to the clock tick; elsewhere the ID alone).
    static func writerIsGone(_ id: Int32, of entry: [UInt8], in directory: Int32) -> Bool {
        if processIsGone(id) { return true }
        var status = stat()
        guard withCString(entry, { fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) }) == 0 else { return false }
        #if canImport(Darwin)
        let changed = Double(status.st_ctimespec.tv_sec) + Double(status.st_ctimespec.tv_nsec) / 1e9
        #else
        let changed = Double(status.st_ctim.tv_sec) + Double(status.st_ctim.tv_nsec) / 1e9
        #endif
        return writerIsGone(id, changedAt: changed)
    }

    /// Whether process `id` cannot be the writer of a temporary last changed
    /// at `changed` (seconds since 1970): there is no such process, or it
    /// started more than two seconds after that (a margin for the start
    /// time, counted in clock ticks, and for a clock set back a little since:
    /// a live writer must never be taken for gone). Never this process.
    package static func writerIsGone(_ id: Int32, changedAt changed: Double) -> Bool {
        if processIsGone(id) { return true }
        guard id != getpid(), let started = ProcessStart.seconds(of: id) else { return false }
        return started > changed + 2
    }

    /// `folder` + `/` + `name`, or `name` alone for the current directory.
    package static func path(_ name: String, in folder: String) -> String {
        folder.isEmpty ? name : folder.hasSuffix("/") ? folder + name : folder + "/" + name
    }

    /// Makes a new file (`O_EXCL`, mode `permissions` masked by the umask)
    /// under a fresh temporary name for `target` in `directory` (a descriptor,
    /// or `AT_FDCWD`; `folder` is its path) and registers it for removal on a
    /// signal. Returns the open descriptor and the name; nil with `errno` set
    /// when the file cannot be made.
    package static func makeFile(for target: String, in directory: Int32, folder: String, permissions: UInt16 = 0o600)
        -> (descriptor: Int32, name: String)?
    {
        var made: (descriptor: Int32, name: String)?
        let succeeded = make(for: target, folder: folder) { name in
            let descriptor = RawFileName.withPath(name) {
                openat(directory, $0, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode_t(permissions))
            }
            if descriptor >= 0 { made = (descriptor, name) }
            return descriptor >= 0
        }
        return succeeded ? made : nil
    }

    /// Makes a new folder (mode 0700) under a fresh temporary name for
    /// `target` in `directory`, registered as `makeFile` does. Returns its
    /// name; nil with `errno` set when it cannot be made.
    package static func makeFolder(for target: String, in directory: Int32, folder: String) -> String? {
        var made: String?
        let succeeded = make(for: target, folder: folder) { name in
            let result = RawFileName.withPath(name) { mkdirat(directory, $0, 0o700) }
            if result == 0 { made = name }
            return result == 0
        }
        return succeeded ? made : nil
    }

    /// Tries fresh names with `create` (which sets `errno` on failure) until
    /// one is free, holding signals so the item made is registered before any
    /// can end the process.
    private static func make(for target: String, folder: String, _ create: (String) -> Bool) -> Bool {
        for _ in 0..<100 {
            let name = name(for: target)
            let held = InterruptCleanup.holdSignals()
            let created = create(name)
            let code = errno
            if created { InterruptCleanup.register(path(name, in: folder)) }
            InterruptCleanup.release(held)
            if created { return true }
            guard code == EEXIST else {
                errno = code
                return false
            }
        }
        errno = EEXIST
        return false
    }

    /// Registers an item this process renamed to a temporary name (say an
    /// old version moved aside to be removed), so a signal removes it.
    package static func adopt(_ name: String, folder: String) {
        InterruptCleanup.register(path(name, in: folder))
    }

    /// The temporary `name` in `folder` is renamed into place or removed:
    /// a signal no longer removes anything under that name.
    package static func finished(_ name: String, folder: String) {
        InterruptCleanup.unregister(path(name, in: folder))
    }

    /// The hidden entries of `directory`, and those named like `NAME.partial-PID`:
    /// the candidates `removeStale(of:among:in:)` looks through, listed once
    /// for every target written into one folder. Empty when it cannot be listed.
    package static func candidates(in directory: Int32) -> [[UInt8]] {
        let partial = Array(".partial-".utf8)
        let entries = (try? Directory.entries(of: directory, path: "")) ?? []
        return entries.map(\.bytes).filter { name in
            name.count > 2 && (name.first == UInt8(ascii: ".") || name.firstRange(of: partial) != nil)
        }
    }

    /// Removes the temporaries of `target` in `directory` whose process is
    /// gone (best effort: what cannot be removed stays). An old version moved
    /// aside is renamed back to `target` when nothing is there. Returns the
    /// names it handled, for a caller that keeps the candidates of a folder.
    @discardableResult
    package static func removeStale(of target: String, among candidates: [[UInt8]]? = nil, in directory: Int32) -> [[UInt8]] {
        var stale: [(name: [UInt8], role: Role)] = []
        for entry in candidates ?? self.candidates(in: directory) {
            guard let (role, processID) = owner(of: entry, target: target), writerIsGone(processID, of: entry, in: directory) else { continue }
            stale.append((entry, role))
        }
        let targetBytes = RawFileName.bytes(target)
        var restored: [UInt8]?
        if let old = stale.first(where: { $0.role == .old }) {
            var status = stat()
            let missing = withCString(targetBytes) { fstatat(directory, $0, &status, AT_SYMLINK_NOFOLLOW) } != 0 && errno == ENOENT
            if missing,
                withCString(old.name, { from in withCString(targetBytes) { to in ictkit_rename_without_replacing(directory, from, directory, to) } }) == 0
            {
                restored = old.name
            }
        }
        for (name, _) in stale where name != restored {
            _ = withCString(name) { Directory.removeTree(named: $0, in: directory) }
        }
        return stale.map(\.name)
    }

    private static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
        (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
    }
}
