import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// An advisory lock on a file-system item, shared by every ICTKit writer
/// (and reader that asks) on this machine: whoever holds it exclusively may
/// read, change and write the item back without another ICTKit process or
/// thread doing the same in between.
///
/// The lock names the item by its place — the device and inode of the
/// folder holding it, and its name there — not by the item's own inode, so
/// it holds across saves that replace the file or package directory by a
/// rename (a new inode each time). Nothing is written in that folder (such
/// folders are synced to other machines): the lock is an `flock(2)` on a
/// small file in a machine-wide directory (`/dev/shm/ictkit-locks` on Linux,
/// `/tmp/ictkit-locks` elsewhere, or `ICTKIT_LOCK_DIRECTORY`), which the
/// kernel releases when the process ends however it ends.
///
/// Within one process a thread may take a lock it already holds again
/// (a document save inside a command's read-modify-write); other threads
/// wait for it as other processes do.
package final class ItemLock {
    /// Shared (readers, many at once) or exclusive (one writer).
    package enum Mode: Sendable {
        case shared, exclusive
    }

    /// Why a lock could not be taken.
    package struct Failure: Error, CustomStringConvertible {
        /// Whether another holder kept it past the timeout.
        package let timedOut: Bool
        package let description: String
    }

    /// How long `acquire` waits by default: long enough for a large save
    /// by another process, short enough that a stuck one is reported.
    package static let defaultTimeout: Double = 120

    /// The lock and the thread that took it: a lock may be released (or dropped) on another thread.
    private let holder: Holder
    private var released = false
    /// Whether this thread held the lock already when it took it again (a
    /// save inside a coordinated write): the outer holder tells presenters.
    package let isReentered: Bool

    private init(holder: Holder, isReentered: Bool) {
        self.holder = holder
        self.isReentered = isReentered
    }

    deinit { release() }

    /// Takes the lock on the item at `path` (which need not exist yet; its
    /// folder must), waiting up to `timeout` seconds for other holders.
    ///
    /// A final symbolic link is followed when it resolves (the writers
    /// write through it to its target); folders on the way may be links.
    ///
    /// - Throws: `Failure` when the folder cannot be found, the lock
    ///   directory cannot be used, or the wait timed out.
    package static func acquire(_ path: String, _ mode: Mode, timeout: Double = defaultTimeout) throws(Failure) -> ItemLock {
        let key = try Key(path: path)
        let holder = Holder(key: key)
        if Registry.shared.reenter(holder, mode) { return ItemLock(holder: holder, isReentered: true) }
        let (descriptor, lockPath) = try lockFile(for: key, mode: mode, timeout: timeout)
        Registry.shared.hold(holder, mode, descriptor: descriptor, lockPath: lockPath)
        return ItemLock(holder: holder, isReentered: false)
    }

    /// Gives the lock up (also when the value is dropped); once only.
    package func release() {
        guard !released else { return }
        released = true
        guard let (descriptor, lockPath, heldMode) = Registry.shared.leave(holder) else { return }
        if heldMode == .exclusive {
            // Unlinked while still held, so a waiter that opened this inode
            // sees it is no longer the lock's file and opens the new one.
            var named = stat(), held = stat()
            if lstat(lockPath, &named) == 0, fstat(descriptor, &held) == 0, named.st_ino == held.st_ino, named.st_dev == held.st_dev {
                unlink(lockPath)
            }
        }
        close(descriptor)
    }

    /// Opens and locks the lock file of `key`, retrying when the file it
    /// opened was unlinked by the holder it waited for.
    private static func lockFile(for key: Key, mode: Mode, timeout: Double) throws(Failure) -> (Int32, String) {
        let directory = try lockDirectory()
        let lockPath = directory + "/" + key.fileName
        let operation = (mode == .exclusive ? LOCK_EX : LOCK_SH) | LOCK_NB
        var waited = 0.0
        var pause = 0.000_05
        while true {
            let descriptor = open(lockPath, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0o666)
            guard descriptor >= 0 else {
                throw Failure(timedOut: false, description: "cannot open the lock file \(lockPath): \(String(cString: strerror(errno)))")
            }
            // Others (other users too) must be able to open it: the umask may have taken write access away.
            _ = fchmod(descriptor, 0o666)
            while flock(descriptor, operation) != 0 {
                guard errno == EWOULDBLOCK || errno == EINTR else {
                    let reason = String(cString: strerror(errno))
                    close(descriptor)
                    throw Failure(timedOut: false, description: "cannot lock \(lockPath): \(reason)")
                }
                guard waited < timeout else {
                    close(descriptor)
                    throw Failure(
                        timedOut: true,
                        description: "another process kept it locked for \(Int(timeout)) seconds; nothing was changed")
                }
                // Short pauses first (a read-modify-write of a small file
                // takes a millisecond or two), growing to 10 ms.
                var request = timespec(tv_sec: 0, tv_nsec: Int(pause * 1e9))
                nanosleep(&request, nil)
                waited += pause
                pause = min(pause * 2, 0.01)
            }
            var named = stat(), held = stat()
            if lstat(lockPath, &named) == 0, fstat(descriptor, &held) == 0, named.st_ino == held.st_ino, named.st_dev == held.st_dev {
                return (descriptor, lockPath)
            }
            close(descriptor)
        }
    }

    /// The machine-wide directory of lock files, made on first use (sticky
    /// and writable by all, as `/tmp`).
    static func lockDirectory() throws(Failure) -> String {
        let directory: String
        if let configured = getenv("ICTKIT_LOCK_DIRECTORY") {
            directory = String(cString: configured)
        } else {
            #if os(Linux)
            var status = stat()
            directory = stat("/dev/shm", &status) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm/ictkit-locks" : "/tmp/ictkit-locks"
            #else
            directory = "/tmp/ictkit-locks"
            #endif
        }
        var status = stat()
        if lstat(directory, &status) != 0 {
            if mkdir(directory, 0o1777) == 0 {
                _ = chmod(directory, 0o1777)
            } else if errno != EEXIST {
                throw Failure(timedOut: false, description: "cannot make the lock directory \(directory): \(String(cString: strerror(errno)))")
            }
            guard lstat(directory, &status) == 0 else {
                throw Failure(timedOut: false, description: "cannot use the lock directory \(directory): \(String(cString: strerror(errno)))")
            }
        }
        guard (status.st_mode & S_IFMT) == S_IFDIR else {
            throw Failure(timedOut: false, description: "the lock directory \(directory) is not a directory")
        }
        return directory
    }

    /// What a lock is on: the folder's device and inode and the item's name in it.
    struct Key: Hashable {
        var device: UInt64
        var inode: UInt64
        var name: [UInt8]

        init(path: String) throws(Failure) {
            var bytes = RawFileName.bytes(path)
            if let target = Self.linkTarget(bytes) { bytes = target }
            while bytes.count > 1, bytes.last == UInt8(ascii: "/") { bytes.removeLast() }
            let slash = bytes.lastIndex(of: UInt8(ascii: "/"))
            let folder = slash.map { $0 == 0 ? [UInt8(ascii: "/")] : Array(bytes[..<$0]) } ?? [UInt8(ascii: ".")]
            name = slash.map { Array(bytes[($0 + 1)...]) } ?? bytes
            if name.isEmpty || name == [UInt8(ascii: ".")] || name == [UInt8(ascii: "."), UInt8(ascii: ".")] {
                // A folder named by `.`, `..` or `/`: the folder itself, by its own identity.
                var status = stat()
                guard Self.withCString(bytes, { stat($0, &status) }) == 0 else { throw Self.missing(path) }
                device = UInt64(status.st_dev)
                inode = UInt64(status.st_ino)
                name = []
                return
            }
            var status = stat()
            guard Self.withCString(folder, { stat($0, &status) }) == 0 else { throw Self.missing(path) }
            device = UInt64(status.st_dev)
            inode = UInt64(status.st_ino)
        }

        /// The lock file's name: the folder's identity and a hash of the name
        /// (two names sharing a hash only share a lock).
        var fileName: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in name {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3  // FNV-1a: wrapping by design.
            }
            return "\(String(device, radix: 16))-\(String(inode, radix: 16))-\(String(hash, radix: 16))"
        }

        /// The item a final symbolic link points to, when it resolves.
        private static func linkTarget(_ bytes: [UInt8]) -> [UInt8]? {
            var status = stat()
            guard withCString(bytes, { lstat($0, &status) }) == 0, (status.st_mode & S_IFMT) == S_IFLNK,
                let resolved = withCString(bytes, { realpath($0, nil) })
            else { return nil }
            defer { free(resolved) }
            return Array(UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)))
        }

        private static func withCString<R>(_ bytes: [UInt8], _ body: (UnsafePointer<CChar>) -> R) -> R {
            (bytes.map { CChar(bitPattern: $0) } + [0]).withUnsafeBufferPointer { body($0.baseAddress!) }
        }

        private static func missing(_ path: String) -> Failure {
            Failure(timedOut: false, description: "cannot lock it: its folder cannot be found (\(String(cString: strerror(errno))))")
        }
    }

    /// A lock taken by a thread: the key and the thread that took it.
    struct Holder: Hashable {
        var key: Key
        var thread: UInt

        /// `key` as taken by the calling thread.
        init(key: Key) {
            self.key = key
            #if canImport(Darwin)
            thread = UInt(bitPattern: pthread_self())
            #else
            thread = UInt(pthread_self())
            #endif
        }
    }

    /// The locks this process holds, by key and thread, so a thread can take one it holds again.
    private final class Registry: @unchecked Sendable {
        // @unchecked: every access to `held` is under `mutex`.
        static let shared = Registry()

        private struct Held {
            var descriptor: Int32
            var lockPath: String
            var mode: Mode
            var depth: Int
        }

        private let mutex = ThreadLock()
        private var held: [Holder: Held] = [:]

        /// True when this thread already holds `key` in a mode that covers `mode`; counts the nesting.
        func reenter(_ holder: Holder, _ mode: Mode) -> Bool {
            mutex.withLock {
                guard var entry = held[holder], entry.mode == .exclusive || mode == .shared else { return false }
                entry.depth += 1
                held[holder] = entry
                return true
            }
        }

        func hold(_ holder: Holder, _ mode: Mode, descriptor: Int32, lockPath: String) {
            mutex.withLock { held[holder] = Held(descriptor: descriptor, lockPath: lockPath, mode: mode, depth: 1) }
        }

        /// The descriptor and lock file to give up when this was the outermost hold of this thread.
        func leave(_ holder: Holder) -> (descriptor: Int32, lockPath: String, mode: Mode)? {
            mutex.withLock {
                guard var entry = held[holder] else { return nil }
                entry.depth -= 1
                if entry.depth > 0 {
                    held[holder] = entry
                    return nil
                }
                held.removeValue(forKey: holder)
                return (entry.descriptor, entry.lockPath, entry.mode)
            }
        }
    }
}
