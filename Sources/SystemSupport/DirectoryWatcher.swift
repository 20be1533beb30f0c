import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Watches folders for names appearing, going, being renamed and files
/// being written, by any process (those that do not coordinate too).
///
/// On Linux, inotify(7): each event names the entry. Elsewhere it cannot be
/// made (`Failure`), and presenters hear only of coordinated writers.
package final class DirectoryWatcher {
    /// What happened to a name in a watched folder.
    package enum Change: Sendable, Equatable {
        /// The name appeared (made, or renamed to), or a file by it was written and closed.
        case appeared
        /// The name went (removed, or renamed from).
        case went
        /// The watched folder itself went or was replaced; its watch is gone.
        case folderGone
        /// The kernel's queue overflowed and events were lost (watch -1): anything may have changed.
        case overflowed
    }

    /// One event: the watch (as `watch(_:)` returned it), the name in that
    /// folder (empty for the folder itself), the change, and the cookie
    /// pairing the two halves of a rename (0 otherwise).
    package struct Event: Sendable, Equatable {
        package var watch: Int32
        package var name: String
        package var change: Change
        package var cookie: UInt32
    }

    /// Why watching failed.
    package struct Failure: Error, CustomStringConvertible {
        package let description: String
        /// The folder was not there (or not a folder) when it was to be watched: ENOENT or ENOTDIR.
        package var isGone = false
    }

    /// The descriptor to wait on (`waitForInput`).
    package let descriptor: Int32
    private var closed = false

    /// Makes a watcher with no folder yet.
    ///
    /// - Throws: `Failure` where the platform has no inotify, or the per-user limit is reached.
    package init() throws(Failure) {
        #if os(Linux)
        descriptor = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard descriptor >= 0 else {
            throw Failure(description: "cannot watch for changes: inotify: \(String(cString: strerror(errno)))")
        }
        #else
        throw Failure(description: "watching folders for changes is not supported on this platform yet")
        #endif
    }

    deinit { close() }

    /// Starts watching the folder at `path` (the same folder again gives
    /// the same watch); without `followingLink`, a last symbolic link is
    /// not followed (it fails, as not a folder).
    ///
    /// - Throws: `Failure` when it is not there or cannot be watched.
    package func watch(_ path: String, followingLink: Bool = true) throws(Failure) -> Int32 {
        #if os(Linux)
        var mask = UInt32(IN_CREATE | IN_DELETE | IN_MOVED_FROM | IN_MOVED_TO | IN_CLOSE_WRITE | IN_DELETE_SELF | IN_MOVE_SELF)
        if !followingLink { mask |= UInt32(IN_DONT_FOLLOW) }
        let watch = RawFileName.withPath(path) { inotify_add_watch(descriptor, $0, mask | UInt32(IN_ONLYDIR)) }
        guard watch >= 0 else {
            let number = errno
            throw Failure(description: "cannot watch \(path) for changes: \(String(cString: strerror(number)))", isGone: number == ENOENT || number == ENOTDIR)
        }
        return watch
        #else
        throw Failure(description: "watching folders for changes is not supported on this platform yet")
        #endif
    }

    /// Stops watching what `watch` (as `watch(_:followingLink:)` returned
    /// it) watches; a watch the kernel already ended (its folder removed) is
    /// no error. The corresponding C function is `inotify_rm_watch`.
    package func unwatch(_ watch: Int32) {
        #if os(Linux)
        _ = inotify_rm_watch(descriptor, watch)
        #endif
    }

    /// The events waiting now (none when nothing happened).
    package func events() -> [Event] {
        #if os(Linux)
        var events: [Event] = []
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { break }
            var offset = 0
            // The kernel writes whole events: a 16-byte header (watch, mask, cookie, name length) and the name.
            while count - offset >= 16 {
                let header = buffer.withUnsafeBytes { raw in
                    (
                        raw.loadUnaligned(fromByteOffset: offset, as: Int32.self),
                        raw.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self),
                        raw.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self),
                        Int(raw.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self))
                    )
                }
                let (watch, mask, cookie, length) = header
                guard length <= count - offset - 16 else { break }
                let nameBytes = buffer[(offset + 16)..<(offset + 16 + length)].prefix(while: { $0 != 0 })
                offset += 16 + length
                let name = RawFileName.decoding(nameBytes)  // A name that is not UTF-8 is carried byte for byte.
                let change: Change
                if mask & UInt32(IN_Q_OVERFLOW) != 0 {
                    change = .overflowed
                } else if mask & UInt32(IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED) != 0 {
                    change = .folderGone
                } else if mask & UInt32(IN_DELETE | IN_MOVED_FROM) != 0 {
                    change = .went
                } else if mask & UInt32(IN_CREATE | IN_MOVED_TO | IN_CLOSE_WRITE) != 0 {
                    change = .appeared
                } else {
                    continue
                }
                events.append(Event(watch: watch, name: name, change: change, cookie: cookie))
            }
        }
        return events
        #else
        return []
        #endif
    }

    /// Stops watching; once only.
    package func close() {
        guard !closed else { return }
        closed = true
        closeDescriptor(descriptor)
    }
}
