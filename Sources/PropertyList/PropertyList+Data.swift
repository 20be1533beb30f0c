#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

// `Data` forms of the operations that take or return bytes only as
// `[UInt8]` or `UnsafeRawBufferPointer`. Each returned `Data` is one copy of
// the encoder's bytes.

extension PropertyListFormat {
    /// Guesses the form of `data` from its first bytes, as `detect(_:)` on bytes.
    /// Reads at most the first 4096 bytes.
    public static func detect(_ data: Data) -> PropertyListFormat {
        data.withUnsafeBytes { detect($0) }
    }
}

extension NonPropertyListFormat {
    /// The format of `data` and where its telling mark is, as `detect(_:)` on
    /// bytes; nil when it is none of these formats. Reads at most the first 4096 bytes.
    public static func detect(_ data: Data) -> (format: NonPropertyListFormat, location: PropertyListLocation)? {
        data.withUnsafeBytes { detect($0) }
    }
}

extension PropertyListLocator {
    /// The place of the value at each of `keyPaths` in `data`, as
    /// `locations(of:in:)` on bytes. Decodes `data` in full.
    public static func locations(of keyPaths: [PropertyListKeyPath], in data: Data) -> [PropertyListLocation] {
        data.withUnsafeBytes { locations(of: keyPaths, in: $0) }
    }
}

extension PropertyListWriter {
    /// Encodes `value` in `format` as `Data`, as `encode(_:format:)`.
    ///
    /// - Throws: `PropertyListError` as `encode(_:format:)`: `.unsupportedValue`
    ///   for the OpenStep form or a value the form cannot hold,
    ///   `.limitExceeded(.depth)` for over-deep values.
    public func encodedData(_ value: PropertyListValue, format: PropertyListFormat) throws(PropertyListError) -> Data {
        Data(try encode(value, format: format))
    }
}

extension BinaryPropertyListWriter {
    /// Encodes `value` as a `bplist00` in `Data`, as `encode(_:)`.
    ///
    /// - Throws: `PropertyListError` as `encode(_:)`.
    public func encodedData(_ value: PropertyListValue) throws(PropertyListError) -> Data {
        Data(try encode(value))
    }

    /// Encodes `objectTable` as a `bplist00` in `Data`, as `encode(objectTable:)`
    /// (whose preconditions apply).
    public func encodedData(objectTable: [BinaryPropertyListObject]) -> Data {
        Data(encode(objectTable: objectTable))
    }
}

extension XMLPropertyListWriter {
    /// Encodes `value` as an XML property list in `Data`, as `encode(_:)`.
    ///
    /// - Throws: `PropertyListError` as `encode(_:)`.
    public func encodedData(_ value: PropertyListValue) throws(PropertyListError) -> Data {
        Data(try encode(value))
    }
}

extension JSONPropertyListWriter {
    /// Encodes `value` in ICTKit's JSON form in `Data`, as `encode(_:)`.
    ///
    /// - Throws: `PropertyListError` as `encode(_:)`.
    public func encodedData(_ value: PropertyListValue) throws(PropertyListError) -> Data {
        Data(try encode(value))
    }
}

extension PartialBinaryPropertyList {
    /// `count` bytes of the file from `offset` as `Data`, as `bytes(at:count:)`.
    ///
    /// Reads the 4 KB-aligned windows around them that were not read before.
    ///
    /// - Throws: `PropertyListError` `.truncated` when the range runs past the
    ///   end of the file, `.io` when the file cannot be read.
    public func data(at offset: Int, count: Int) throws(PropertyListError) -> Data {
        Data(try bytes(at: offset, count: count))
    }
}
