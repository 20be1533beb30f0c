#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

extension Data {
    /// Calls `body` with the data's bytes, passing its typed error through
    /// (`withUnsafeBytes` alone would widen it to `any Error`).
    func withPropertyListBytes<Result>(
        _ body: (UnsafeRawBufferPointer) throws(PropertyListError) -> Result
    ) throws(PropertyListError) -> Result {
        let outcome: Swift.Result<Result, PropertyListError> = withUnsafeBytes { bytes in
            Swift.Result { () throws(PropertyListError) in try body(bytes) }
        }
        return try outcome.get()
    }
}

extension PropertyListLimits {
    /// Throws `limitExceeded(.inputSize)`, located at `location`, when an
    /// input of `count` bytes is over `maximumInputSize`.
    func checkInputSize(_ count: Int, at location: PropertyListLocation) throws(PropertyListError) {
        guard count <= maximumInputSize else {
            throw PropertyListError(
                .limitExceeded(.inputSize), at: location,
                "the input is \(count) bytes, over the limit of \(maximumInputSize)")
        }
    }
}
