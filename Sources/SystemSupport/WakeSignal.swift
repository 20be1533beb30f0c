#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A pipe one thread waits on (`waitForInput`, or an `HTTPExchange`'s
/// `cancel`) and another writes to, to wake it without a periodic wake-up.
package final class WakeSignal: @unchecked Sendable {
    // @unchecked: only the two descriptors, fixed at init; writing and
    // reading a pipe are safe from any thread.

    /// The end to wait on: readable once `signal()` was called, until `drain()`.
    package let descriptor: Int32
    private let writeEnd: Int32

    /// A new pipe, both ends non-blocking and closed on exec.
    ///
    /// - Throws: `Failure` when no pipe can be made (out of descriptors).
    package init() throws(Failure) {
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else { throw Failure(description: "cannot make a pipe: \(String(cString: strerror(errno)))") }
        for end in ends {
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
        }
        descriptor = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        closeDescriptor(descriptor)
        closeDescriptor(writeEnd)
    }

    /// Makes `descriptor` readable (a full pipe is already readable).
    package func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Reads every byte waiting, so `descriptor` is no longer readable.
    package func drain() {
        var bytes = [UInt8](repeating: 0, count: 256)
        while bytes.withUnsafeMutableBytes({ read(descriptor, $0.baseAddress, $0.count) }) > 0 {}
    }

    /// Why a pipe could not be made.
    package struct Failure: Error, CustomStringConvertible {
        package var description: String
    }
}
