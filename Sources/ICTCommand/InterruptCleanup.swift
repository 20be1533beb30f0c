import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary files of unfinished output when SIGINT, SIGTERM or
/// SIGHUP ends the process, then lets the signal end it as it would have.
/// A signal the process was started with ignored is left ignored.
///
/// The handler may only make async-signal-safe calls: the paths are kept as
/// C strings in a fixed table made before any handler is installed, and the
/// handler calls `unlink`, `signal` and `raise` only.
enum InterruptCleanup {
    private static let capacity = 8
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// The registered paths, NUL-terminated and malloc'd, or nil.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    nonisolated(unsafe) private static var installed = false

    /// Installs the handlers (once).
    static func install() {
        guard !installed else { return }
        installed = true
        _ = table
        for signal in signals {
            // A signal the parent set to be ignored (`nohup`, a background
            // job of a script) stays ignored.
            var current = sigaction()
            sigaction(signal, nil, &current)
            #if canImport(Glibc)
            let ignored = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            #else
            let ignored = unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self) == unsafeBitCast(SIG_IGN, to: Int.self)
            #endif
            if ignored { continue }
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = InterruptCleanup.handle
            #else
            action.__sigaction_u.__sa_handler = InterruptCleanup.handle
            #endif
            sigemptyset(&action.sa_mask)
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }

    /// Blocks the handled signals until `release`; returns the previous mask.
    static func holdSignals() -> sigset_t {
        var blocked = sigset_t(), previous = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        sigprocmask(SIG_BLOCK, &blocked, &previous)
        return previous
    }

    static func release(_ previous: sigset_t) {
        var mask = previous
        sigprocmask(SIG_SETMASK, &mask, nil)
    }

    /// Removes `path` if the process is interrupted before `unregister`.
    static func register(_ path: String) {
        let held = holdSignals()
        defer { release(held) }
        for slot in 0..<capacity where table[slot] == nil {
            let bytes = RawFileName.bytes(path)
            let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
            for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
            copy[bytes.count] = 0
            table[slot] = copy
            return
        }
    }

    static func unregister(_ path: String) {
        let held = holdSignals()
        defer { release(held) }
        let bytes = RawFileName.bytes(path).map { CChar(bitPattern: $0) }
        for slot in 0..<capacity {
            guard let entry = table[slot], strlen(entry) == bytes.count,
                bytes.withUnsafeBufferPointer({ memcmp(entry, $0.baseAddress!, bytes.count) }) == 0
            else { continue }
            table[slot] = nil
            entry.deallocate()
            return
        }
    }

    private static let handle: @convention(c) (Int32) -> Void = { signal in
        for slot in 0..<InterruptCleanup.capacity {
            if let path = InterruptCleanup.table[slot] { unlink(path) }
        }
        endBySignal(signal)
    }
}

/// Restores the default action for `number` and raises it again, so the
/// process ends as the signal says (exit status 128 + number for the shell).
private func endBySignal(_ number: Int32) {
    signal(number, SIG_DFL)
    raise(number)
}
