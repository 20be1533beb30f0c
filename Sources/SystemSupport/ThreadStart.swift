#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// Starts a POSIX thread that runs `run` and ends, with a stack of
/// `stackSize` bytes (nil: the system's default): the thread, or nil when
/// the system cannot start another (`pthread_create` fails: EAGAIN at the
/// process's limit). The one place `DetachedThread` and `JoinableThread`
/// start their threads.
/// The corresponding C functions are `pthread_attr_setstacksize` and `pthread_create`.
func startPOSIXThread(stackSize: Int?, _ run: @escaping () -> Void) -> pthread_t? {
    var attributes = pthread_attr_t()
    guard pthread_attr_init(&attributes) == 0 else { return nil }
    defer { pthread_attr_destroy(&attributes) }
    if let stackSize { _ = pthread_attr_setstacksize(&attributes, stackSize) }
    let retained = Unmanaged.passRetained(ThreadStart(run))
    #if canImport(Darwin)
    var made: pthread_t?
    let status = pthread_create(&made, &attributes, runThreadStart, retained.toOpaque())
    #else
    var made = pthread_t()
    let status = pthread_create(&made, &attributes, runThreadStart, retained.toOpaque())
    #endif
    guard status == 0 else {
        retained.release()
        return nil
    }
    #if canImport(Darwin)
    guard let created = made else { preconditionFailure("pthread_create succeeded without a thread") }
    return created
    #else
    return made
    #endif
}

/// What a new thread runs: `pthread_create` takes a C function and one pointer.
private final class ThreadStart {
    let run: () -> Void
    init(_ run: @escaping () -> Void) { self.run = run }
}

#if canImport(Darwin)
private func runThreadStart(_ opaque: UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? {
    Unmanaged<ThreadStart>.fromOpaque(opaque).takeRetainedValue().run()
    return nil
}
#else
private func runThreadStart(_ opaque: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    guard let opaque else { return nil }
    Unmanaged<ThreadStart>.fromOpaque(opaque).takeRetainedValue().run()
    return nil
}
#endif
