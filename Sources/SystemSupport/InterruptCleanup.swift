import CFileSystem

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Removes the temporary files and folders of unfinished writes when SIGINT,
/// SIGTERM or SIGHUP ends the process, then lets the signal end it as it
/// would have. Every writer of the process registers its temporaries here
/// (`TemporaryItem`), the library's as the command's.
///
/// A handler is installed only for a signal whose action is still the
/// default: a signal the process was started with ignored (`nohup`) stays
/// ignored, and a program that handles the signal itself keeps its handler
/// (its temporaries are then removed by the next write of the same target).
///
/// The handler makes async-signal-safe calls only: the paths are C strings
/// in a fixed table made before any handler is installed, a folder is
/// emptied with `ictkit_remove_tree` (system calls into a static buffer,
/// no allocation), and the handlers block one another while they run.
package enum InterruptCleanup {
    private static let capacity = 16
    private static let signals: [Int32] = [SIGINT, SIGTERM, SIGHUP]
    /// The registered paths, NUL-terminated and malloc'd, or nil.
    nonisolated(unsafe) private static let table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?> = {
        let table = UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>.allocate(capacity: capacity)
        table.initialize(repeating: nil, count: capacity)
        return table
    }()
    nonisolated(unsafe) private static var installed = false
    /// Serialises `register` and `unregister` between threads (the handler itself takes no lock).
    private static let lock = ThreadLock()

    /// Installs the handlers (once); `register` calls it, holding the lock.
    private static func install() {
        guard !installed else { return }
        installed = true
        _ = table
        for signal in signals {
            var current = sigaction()
            sigaction(signal, nil, &current)
            #if canImport(Glibc)
            let handler = unsafeBitCast(current.__sigaction_handler.sa_handler, to: Int.self)
            #else
            let handler = unsafeBitCast(current.__sigaction_u.__sa_handler, to: Int.self)
            #endif
            // Ignored (`nohup`, a background job of a script) or handled by the program: left as it is.
            guard handler == unsafeBitCast(SIG_DFL, to: Int.self), current.sa_flags & SA_SIGINFO == 0 else { continue }
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = InterruptCleanup.handle
            #else
            action.__sigaction_u.__sa_handler = InterruptCleanup.handle
            #endif
            sigemptyset(&action.sa_mask)
            for blocked in signals { sigaddset(&action.sa_mask, blocked) }
            action.sa_flags = 0
            sigaction(signal, &action, nil)
        }
    }

    /// Blocks the handled signals until `release`; returns the previous mask.
    /// Held around making a temporary and registering it, so no signal can
    /// end the process between the two and leave it behind.
    package static func holdSignals() -> sigset_t {
        var blocked = sigset_t()
        var previous = sigset_t()
        sigemptyset(&blocked)
        for signal in signals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, &previous)
        return previous
    }

    /// Restores the signal mask `holdSignals` returned.
    package static func release(_ previous: sigset_t) {
        var mask = previous
        pthread_sigmask(SIG_SETMASK, &mask, nil)
    }

    /// Removes the file or folder at `path` (with everything in it) if the
    /// process is interrupted before `unregister`. When the table is full
    /// the path is not kept: the next write of the same target removes it.
    package static func register(_ path: String) {
        let held = holdSignals()
        defer { release(held) }
        lock.withLock {
            install()
            for slot in 0..<capacity where table[slot] == nil {
                let bytes = RawFileName.bytes(path)
                let copy = UnsafeMutablePointer<CChar>.allocate(capacity: bytes.count + 1)
                for (index, byte) in bytes.enumerated() { copy[index] = CChar(bitPattern: byte) }
                copy[bytes.count] = 0
                table[slot] = copy
                return
            }
        }
    }

    /// Forgets `path`: it was renamed into place or removed.
    package static func unregister(_ path: String) {
        let held = holdSignals()
        defer { release(held) }
        let bytes = RawFileName.bytes(path).map { CChar(bitPattern: $0) }
        lock.withLock {
            for slot in 0..<capacity {
                guard let entry = table[slot], strlen(entry) == bytes.count,
                    bytes.withUnsafeBufferPointer({ memcmp(entry, $0.baseAddress!, bytes.count) }) == 0
                else { continue }
                table[slot] = nil
                entry.deallocate()
                return
            }
        }
    }

    private static let handle: @convention(c) (Int32) -> Void = { signal in
        for slot in 0..<InterruptCleanup.capacity {
            if let path = InterruptCleanup.table[slot] { ictkit_remove_tree(AT_FDCWD, path) }
        }
        endBySignal(signal)
    }
}

/// Restores the default action for `number` and raises it again, so the
/// process ends as the signal says (exit status 128 + number for the shell).
/// The signal is blocked while its handler runs; it is delivered, and ends
/// the process, when the handler returns.
private func endBySignal(_ number: Int32) {
    signal(number, SIG_DFL)
    raise(number)
}

extension InterruptCleanup {
    /// The signals that ask a command running until interrupted to end.
    private static let terminationSignals: [Int32] = [SIGINT, SIGTERM]

    /// Makes SIGINT and SIGTERM wait for `waitForTermination()` rather than
    /// end the process: blocks them in the calling thread, and so in every
    /// thread it starts afterwards (Dispatch's worker threads block them
    /// already). Call it on the main thread before starting other threads.
    /// The corresponding C function is `pthread_sigmask`.
    package static func holdTermination() {
        var blocked = sigset_t()
        sigemptyset(&blocked)
        for signal in terminationSignals { sigaddset(&blocked, signal) }
        pthread_sigmask(SIG_BLOCK, &blocked, nil)
    }

    /// Waits until SIGINT or SIGTERM is sent to the process, which
    /// `holdTermination()` kept from ending it; returns the signal's number.
    /// The process goes on: the caller stops its work and exits as it chooses.
    /// The corresponding C function is `sigwait`.
    package static func waitForTermination() -> Int32 {
        var awaited = sigset_t()
        sigemptyset(&awaited)
        for signal in terminationSignals { sigaddset(&awaited, signal) }
        var received: Int32 = 0
        while sigwait(&awaited, &received) != 0 {}
        return received
    }
}
