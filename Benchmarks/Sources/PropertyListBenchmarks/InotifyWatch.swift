#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A bare inotify watch of one folder, the peer of the rows that time a
/// query's update (q2, P): it reads its own descriptor and knows nothing
/// but the kernel's events.
final class InotifyWatch {
    private let descriptor: Int32
    private var buffer = [UInt8](repeating: 0, count: 65_536)

    /// Watches `folder` for names created, written and renamed into it.
    ///
    /// - Throws: `BenchmarkFailure` when inotify cannot be used.
    init(folder: String) throws {
        #if os(Linux)
        descriptor = inotify_init1(Int32(IN_CLOEXEC))
        guard descriptor >= 0 else { throw BenchmarkFailure("inotify_init1: errno \(errno)") }
        guard inotify_add_watch(descriptor, folder, UInt32(IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE)) >= 0 else {
            close(descriptor)
            throw BenchmarkFailure("inotify_add_watch \(folder): errno \(errno)")
        }
        #else
        throw BenchmarkFailure("inotify is Linux's")
        #endif
    }

    deinit { close(descriptor) }

    /// Reads and drops every event queued now, so a wait that follows is for what happens next.
    func drain() {
        var pending = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
        while poll(&pending, 1, 0) > 0 {
            guard buffer.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 else { return }
        }
    }

    /// Waits until `name` is renamed into the folder (`IN_MOVED_TO`).
    ///
    /// - Throws: `BenchmarkFailure` when no such event comes within `seconds`, or reading fails.
    func waitForMove(of name: String, seconds: Int) throws {
        #if os(Linux)
        let clock = ContinuousClock()
        let deadline = clock.now + .seconds(seconds)
        while true {
            let left = deadline - clock.now
            guard left > .zero else { throw BenchmarkFailure("no IN_MOVED_TO of \(name) within \(seconds) s") }
            var pending = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&pending, 1, Int32(max(1, left.milliseconds))) > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            guard count > 0 else { throw BenchmarkFailure("reading inotify: errno \(errno)") }
            var offset = 0
            var seen = false
            while offset + 16 <= count {
                let length = Int(buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 12, as: UInt32.self) })
                let mask = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self) }
                let nameBytes = buffer[(offset + 16)..<min(count, offset + 16 + length)].prefix { $0 != 0 }
                if mask & UInt32(IN_MOVED_TO) != 0, String(decoding: nameBytes, as: UTF8.self) == name { seen = true }
                offset += 16 + length
            }
            if seen { return }
        }
        #else
        throw BenchmarkFailure("inotify is Linux's")
        #endif
    }
}
