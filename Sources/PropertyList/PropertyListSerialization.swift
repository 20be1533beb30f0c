#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The serialised forms of a property list.
public enum PropertyListFormat: String, Sendable, CaseIterable {
    /// `bplist00`, CoreFoundation's binary form.
    case binary
    /// Apple's XML form (`<plist version="1.0">`).
    case xml
    /// The old NeXT/OpenStep ASCII form, read only.
    case openStep
    /// ICTKit's lossless JSON form (see `JSONPropertyListWriter`).
    case json

    /// Guesses the form of `bytes` from their first bytes: `bplist` is
    /// binary (the binary reader then insists on `bplist00`); `<` (after any
    /// byte-order mark and white space, in UTF-8, UTF-16 or UTF-32) is XML;
    /// text that may start a JSON value (`{`, `[`, `"`, a digit, `-`, `t`,
    /// `f`, `n`) is reported as JSON, which `PropertyListReader` then tries
    /// first, falling back to OpenStep; anything else is OpenStep.
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> PropertyListFormat {
        if bytes.starts(with: "bplist".utf8) { return .binary }
        // The first character that is not white space or a BOM, ignoring the
        // zero bytes of UTF-16 and UTF-32 encodings.
        for byte in bytes.prefix(4096) {
            switch byte {
            case 0x00, 0x20, 0x09, 0x0A, 0x0D, 0xEF, 0xBB, 0xBF, 0xFE, 0xFF: continue
            case UInt8(ascii: "<"): return .xml
            case UInt8(ascii: "{"), UInt8(ascii: "["), UInt8(ascii: "\""), UInt8(ascii: "-"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "t"), UInt8(ascii: "f"), UInt8(ascii: "n"):
                return .json
            default: return .openStep
            }
        }
        return .openStep
    }
}

/// Reads a property list in any form, detecting which.
public struct PropertyListReader: Sendable {
    /// The limits applied to the input.
    public var limits: PropertyListLimits

    /// Makes a reader with the given limits.
    public init(limits: PropertyListLimits = .default) {
        self.limits = limits
    }

    /// Decodes `bytes`, in `format` when given, else in the detected form.
    /// Text that may be JSON (see `PropertyListFormat.detect`) is read as
    /// JSON when it is valid JSON, so `1` is an integer and `true` a boolean,
    /// else as OpenStep, as `{a = 1;}` is; when it is neither, the error is
    /// the one from the reader that got further into the text.
    ///
    /// - Returns: the value and the form it was read in.
    /// - Throws: `PropertyListError` from the reader of that form; with code
    ///   `.truncated` for empty input (zero bytes), which CoreFoundation
    ///   refuses too; with code `.unrecognizedFormat`, naming the format, for a
    ///   file `NonPropertyListFormat` recognises (a NIBArchive nib, an Xcode
    ///   scheme, …).
    public func read(_ bytes: UnsafeRawBufferPointer, format: PropertyListFormat? = nil) throws(PropertyListError)
        -> (value: PropertyListValue, format: PropertyListFormat)
    {
        guard !bytes.isEmpty else { throw PropertyListError.emptyInput }
        if let (other, location) = NonPropertyListFormat.detect(bytes) { throw other.error(at: location) }
        let chosen = format ?? PropertyListFormat.detect(bytes)
        switch chosen {
        case .binary: return (try BinaryPropertyListReader(limits: limits).read(bytes), .binary)
        case .xml: return (try XMLPropertyListReader(limits: limits).read(bytes), .xml)
        case .openStep: return (try OpenStepPropertyListReader(limits: limits).read(bytes), .openStep)
        case .json:
            if format == .json { return (try JSONPropertyListReader(limits: limits).read(bytes), .json) }
            let jsonError: PropertyListError
            do throws(PropertyListError) {
                return (try JSONPropertyListReader(limits: limits).read(bytes), .json)
            } catch {
                jsonError = error
            }
            do throws(PropertyListError) {
                return (try OpenStepPropertyListReader(limits: limits).read(bytes), .openStep)
            } catch {
                throw error.location.isAfter(jsonError.location) ? error : jsonError
            }
        }
    }

    /// The property list in `bytes` in libICTKitC's flat form, when it is a
    /// binary property list the quick read takes (`BinaryPropertyListReader.readFlat`);
    /// nil for any other input, which the caller reads with `read(_:format:)`.
    ///
    /// - Throws: `PropertyListError`, as `read(_:format:)` for the same bytes.
    package func readFlat(_ bytes: UnsafeRawBufferPointer, format: PropertyListFormat? = nil) throws(PropertyListError)
        -> UnsafeMutableRawBufferPointer?
    {
        guard !bytes.isEmpty, NonPropertyListFormat.detect(bytes) == nil, (format ?? PropertyListFormat.detect(bytes)) == .binary
        else { return nil }
        return try BinaryPropertyListReader(limits: limits).readFlat(bytes)
    }

    /// The property list in `bytes` in libICTKitC's flat form, handed to
    /// `deliver` in chunks as they are written, when it is a binary property
    /// list the quick read takes (`BinaryPropertyListReader.readFlat(_:chunkCount:deliver:)`);
    /// false for any other input, or when the read gave up or `deliver`
    /// stopped it: the caller then reads it with `readFlat(_:format:)` or
    /// `read(_:format:)`, which say where a problem is.
    package func readFlat(
        _ bytes: UnsafeRawBufferPointer, format: PropertyListFormat? = nil, chunkCount: Int,
        deliver: (UnsafeMutableRawBufferPointer) -> Bool
    ) -> Bool {
        guard !bytes.isEmpty, NonPropertyListFormat.detect(bytes) == nil, (format ?? PropertyListFormat.detect(bytes)) == .binary
        else { return false }
        return (try? BinaryPropertyListReader(limits: limits).readFlat(bytes, chunkCount: chunkCount, deliver: deliver)) ?? false
    }

    /// Decodes `data`, as `read(_:format:)` on bytes.
    ///
    /// - Throws: `PropertyListError` from the reader of the form.
    public func read(_ data: Data, format: PropertyListFormat? = nil) throws(PropertyListError)
        -> (value: PropertyListValue, format: PropertyListFormat)
    {
        let result: Result<(value: PropertyListValue, format: PropertyListFormat), PropertyListError> = data.withUnsafeBytes { buffer in
            Result { () throws(PropertyListError) in try read(buffer, format: format) }
        }
        return try result.get()
    }
}

/// Writes a property list in a chosen form.
public struct PropertyListWriter: Sendable {
    /// Makes a writer.
    public init() {}

    /// Encodes `value` in `format`.
    ///
    /// - Throws: `PropertyListError` with code `.unsupportedValue` for the
    ///   OpenStep form, which is read only, or when the value cannot be
    ///   written in that form; `.limitExceeded(.depth)` for over-deep values.
    public func encode(_ value: PropertyListValue, format: PropertyListFormat) throws(PropertyListError) -> [UInt8] {
        switch format {
        case .binary: return try BinaryPropertyListWriter().encode(value)
        case .xml: return try XMLPropertyListWriter().encode(value)
        case .json: return try JSONPropertyListWriter().encode(value)
        case .openStep:
            throw PropertyListError(.unsupportedValue, at: .none, "the OpenStep form is read only; write xml, binary or json")
        }
    }
}
