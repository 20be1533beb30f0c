#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The coder an `ArchiveCoding` class's `init?(coder:)` and `encode(with:)` are
/// given (Foundation's `NSCoder`): `KeyedObjectArchiver` while encoding,
/// `KeyedObjectUnarchiver` while decoding. Calling a decoding method on an
/// archiver, or an encoding one on an unarchiver, is a programmer's error
/// (a precondition), as it is an exception in Foundation.
public class ArchiveCoder {
    /// What an unarchiver does when decoding fails (`NSCoder.DecodingFailurePolicy`).
    public enum DecodingFailurePolicy: Sendable {
        /// Stops the program with the error, as an uncaught Objective-C
        /// exception does (Swift has no exception to catch).
        case raiseException
        /// Records the error in `error`; the failing call and every decoding
        /// call after it return nil, zero or false.
        case setErrorAndReturn
    }

    /// The first error recorded while coding, or nil.
    public internal(set) var error: (any Error)?

    /// What a decoding failure does; `.setErrorAndReturn` unless set.
    public var decodingFailurePolicy: DecodingFailurePolicy = .setErrorAndReturn

    /// True when only `ArchiveSecureCoding` classes that support secure coding
    /// are written or read, and every object decoded is asked for by class.
    public var requiresSecureCoding: Bool

    init(requiresSecureCoding: Bool) {
        self.requiresSecureCoding = requiresSecureCoding
    }

    /// Records `error` as the coder's error (`failWithError:`); with
    /// `.raiseException` stops the program with it. Only the first error is kept.
    public func failWithError(_ error: any Error) {
        if decodingFailurePolicy == .raiseException {
            preconditionFailure("decoding failed: \(error)")
        }
        if self.error == nil { self.error = error }
    }

    func misuse(_ operation: String = #function) -> Never {
        preconditionFailure("\(type(of: self)) does not support \(operation)")
    }

    // MARK: Encoding (overridden by KeyedObjectArchiver)

    /// Encodes `object` under `key` (`encodeObject:forKey:`): an `ArchiveCoding`
    /// instance, a `String`, `Data`, `Date`, `UUID`, `URL`, `ArchivedNumber`, `ArchivedNull`, a Swift
    /// number or `Bool` (as an `NSNumber`), or an array, set or dictionary of
    /// those; nil as `$null`. An instance encoded twice is stored once.
    /// Anything else is recorded as the coder's `error`.
    public func encode(_ object: Any?, forKey key: String) { misuse() }
    /// Encodes a reference to `object` kept only if the object is encoded
    /// unconditionally elsewhere in the archive (`encodeConditionalObject:forKey:`).
    public func encodeConditionalObject(_ object: Any?, forKey key: String) { misuse() }
    /// Encodes an integer (`encodeInteger:forKey:`).
    public func encode(_ value: Int, forKey key: String) { misuse() }
    /// Encodes a 32-bit integer (`encodeInt32:forKey:`).
    public func encode(_ value: Int32, forKey key: String) { misuse() }
    /// Encodes a 64-bit integer (`encodeInt64:forKey:`).
    public func encode(_ value: Int64, forKey key: String) { misuse() }
    /// Encodes a C `int` (`encodeInt:forKey:`, as the original app writes `VERSION`).
    public func encodeCInt(_ value: Int32, forKey key: String) { encode(value, forKey: key) }
    /// Encodes a boolean (`encodeBool:forKey:`).
    public func encode(_ value: Bool, forKey key: String) { misuse() }
    /// Encodes a 64-bit real (`encodeDouble:forKey:`).
    public func encode(_ value: Double, forKey key: String) { misuse() }
    /// Encodes a 32-bit real (`encodeFloat:forKey:`).
    public func encode(_ value: Float, forKey key: String) { misuse() }

    // MARK: Decoding (overridden by KeyedObjectUnarchiver)

    /// True when the object being decoded has a value under `key`.
    public func containsValue(forKey key: String) -> Bool { misuse() }
    /// The object under `key` (`decodeObjectForKey:`); with
    /// `requiresSecureCoding`, only of the classes the enclosing
    /// `decodeObject(of:forKey:)` allowed. Nil when absent or on failure.
    public func decodeObject(forKey key: String) -> Any? { misuse() }
    /// The object under `key` if it is a `type` (`decodeObjectOfClass:forKey:`):
    /// an `ArchiveCoding` class, or `String`, `Data`, `Date`, `UUID`, `URL`, `ArchivedNumber`, `ArchivedNull`,
    /// `[Any]`, `[AnyHashable: Any]`, `Set<AnyHashable>` for Foundation's
    /// classes. Nil when absent, `$null` or on failure (see `error`).
    public func decodeObject<T>(of type: T.Type, forKey key: String) -> T? { misuse() }
    /// The object under `key` if it is one of `types` (`decodeObjectOfClasses:forKey:`);
    /// nil `types` allows what `decodeObject(forKey:)` allows.
    public func decodeObject(of types: [Any.Type]?, forKey key: String) -> Any? { misuse() }
    /// The integer under `key` (`decodeIntegerForKey:`); 0 when absent or on failure.
    public func decodeInteger(forKey key: String) -> Int { misuse() }
    /// The 32-bit integer under `key`; 0 when absent or on failure.
    public func decodeInt32(forKey key: String) -> Int32 { misuse() }
    /// The 64-bit integer under `key`; 0 when absent or on failure.
    public func decodeInt64(forKey key: String) -> Int64 { misuse() }
    /// The C `int` under `key` (`decodeIntForKey:`); 0 when absent or on failure.
    public func decodeCInt(forKey key: String) -> Int32 { decodeInt32(forKey: key) }
    /// The boolean under `key`; false when absent or on failure.
    public func decodeBool(forKey key: String) -> Bool { misuse() }
    /// The real under `key` (any number); 0 when absent or on failure.
    public func decodeDouble(forKey key: String) -> Double { misuse() }
    /// The real under `key` as a 32-bit real; 0 when absent or on failure.
    public func decodeFloat(forKey key: String) -> Float { misuse() }
}
