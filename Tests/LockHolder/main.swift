// A test child: takes the exclusive ItemLock of the path it is given, says
// "locked" on standard output, and holds the lock until its standard input
// ends or it is killed (ConcurrentEditTests kills it with SIGKILL to show the
// kernel releases the lock of a process that dies).
import SystemSupport

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Writes `text` to a descriptor (no C stdio streams: they are shared mutable state to Swift 6).
func say(_ text: String, to descriptor: Int32) {
    let bytes = Array(text.utf8)
    _ = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
}

guard CommandLine.arguments.count == 2 else {
    say("usage: LockHolder PATH\n", to: 2)
    exit(64)
}
do {
    let lock = try ItemLock.acquire(CommandLine.arguments[1], .exclusive)
    say("locked\n", to: 1)
    while readLine() != nil {}
    lock.release()
} catch {
    say("LockHolder: \(error)\n", to: 2)
    exit(1)
}
