import Foundation

/// A value shared between threads, touched only under a lock (`Mutex`
/// would be checked by the compiler, but needs macOS 15).
package final class Protected<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    private let lock = NSLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        lock.lock()
        defer { lock.unlock() }
        return try body(&value)
    }
}
