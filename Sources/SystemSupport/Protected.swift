/// A value shared between threads, touched only under a lock: the kit's one
/// lock style, `Mutex`'s shape (`Synchronization.Mutex` would be checked by
/// the compiler, but needs macOS 15; the Linux-only Apple-named layer uses it).
package final class Protected<Value>: @unchecked Sendable {
    // @unchecked: `value` is only touched inside `withLock`, under `lock`.
    private let lock = ThreadLock()
    private var value: Value

    package init(_ value: Value) { self.value = value }

    package func withLock<Result>(_ body: (inout Value) throws -> Result) rethrows -> Result {
        try lock.withLock { () throws -> Result in try body(&value) }
    }
}
