import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// The flat form of a property list that `ictkit_plist_read_flat` gives and `ictkit_plist_write_flat` takes
/// (ictkit.h describes it): every value in depth-first order, a tag byte and then its payload in native byte
/// order, so a C caller builds its own objects in one pass over one buffer, with no call per value. The tags are
/// `FlatPropertyListTag`'s, which the binary reader writes a file in directly (`PropertyListReader.readFlat`).
enum FlatPropertyList {
    static let string = FlatPropertyListTag.string
    static let int64 = FlatPropertyListTag.int64
    static let uint64 = FlatPropertyListTag.uint64
    static let real = FlatPropertyListTag.real
    static let real32 = FlatPropertyListTag.real32
    static let boolFalse = FlatPropertyListTag.boolFalse
    static let boolTrue = FlatPropertyListTag.boolTrue
    static let date = FlatPropertyListTag.date
    static let data = FlatPropertyListTag.data
    static let uid = FlatPropertyListTag.uid
    static let array = FlatPropertyListTag.array
    static let dictionary = FlatPropertyListTag.dictionary

    /// The bytes `value` takes in the flat form, so the buffer is allocated once at its size.
    ///
    /// - Throws: `PropertyListError` with code `.limitExceeded(.inputSize)` when a string, data or container is
    ///   longer than the form's 32-bit counts hold.
    private static func size(of value: PropertyListValue) throws(PropertyListError) -> Int {
        switch value {
        case .string(let string): return 5 + (try checked(string.utf8.count))
        case .data(let data): return 5 + (try checked(data.count))
        case .bool: return 1
        case .integer, .real, .real32, .date, .uid: return 9
        case .array(let items):
            _ = try checked(items.count)
            var total = 5
            for item in items { total += try size(of: item) }
            return total
        case .dictionary(let dictionary):
            _ = try checked(dictionary.count)
            var total = 5
            for key in dictionary.keys { total += 5 + (try checked(key.utf8.count)) }
            for item in dictionary.values { total += try size(of: item) }
            return total
        }
    }

    /// `count`, when the flat form's 32-bit counts hold it.
    private static func checked(_ count: Int) throws(PropertyListError) -> Int {
        guard count <= UInt32.max else {
            throw PropertyListError(
                .limitExceeded(.inputSize), at: .none, "a value of \(count) members or bytes is too long for the flat form")
        }
        return count
    }

    /// `value` in the flat form, in a buffer of its exact size that the caller frees with `deallocate()`.
    ///
    /// - Throws: `PropertyListError` with code `.limitExceeded(.inputSize)` when a string, data or container is
    ///   longer than the form's 32-bit counts hold.
    static func encode(_ value: PropertyListValue) throws(PropertyListError) -> UnsafeMutableRawBufferPointer {
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(try size(of: value), 1), alignment: 1)
        var writer = Writer(next: buffer.baseAddress!)
        writer.write(value)
        return buffer
    }

    /// Writes values at `next`, which `size(of:)` proved has room for them and checked every count of.
    private struct Writer {
        var next: UnsafeMutableRawPointer

        mutating func tag(_ tag: UInt8) {
            next.storeBytes(of: tag, as: UInt8.self)
            next += 1
        }

        mutating func scalar<Payload: BitwiseCopyable>(_ tag: UInt8, _ payload: Payload) {
            self.tag(tag)
            next.storeBytes(of: payload, toByteOffset: 0, as: Payload.self)
            next += MemoryLayout<Payload>.size
        }

        mutating func count(_ tag: UInt8, _ count: Int) {
            // Safe: size(of:) refused any count above UInt32.max.
            scalar(tag, UInt32(truncatingIfNeeded: count))
        }

        mutating func bytes(_ tag: UInt8, _ bytes: UnsafeRawBufferPointer) {
            count(tag, bytes.count)
            if let base = bytes.baseAddress { next.copyMemory(from: base, byteCount: bytes.count) }
            next += bytes.count
        }

        mutating func string(_ string: String) {
            // A native string's UTF-8 in place, without the copy `withUTF8` on a `var` makes the optimiser keep.
            let done: Void? = string.utf8.withContiguousStorageIfAvailable { bytes(FlatPropertyList.string, UnsafeRawBufferPointer($0)) }
            if done == nil {
                var copy = string
                copy.withUTF8 { bytes(FlatPropertyList.string, UnsafeRawBufferPointer($0)) }
            }
        }

        mutating func write(_ value: PropertyListValue) {
            switch value {
            case .string(let string): self.string(string)
            case .integer(let integer): scalar(integer.isAboveInt64Max ? FlatPropertyList.uint64 : FlatPropertyList.int64, integer.bitPattern)
            case .real(let real): scalar(FlatPropertyList.real, real)
            case .real32(let real): scalar(FlatPropertyList.real32, Double(real))
            case .bool(let bool): tag(bool ? FlatPropertyList.boolTrue : FlatPropertyList.boolFalse)
            case .date(let date): scalar(FlatPropertyList.date, date.timeIntervalSinceReferenceDate)
            case .data(let data): data.withUnsafeBytes { bytes(FlatPropertyList.data, $0) }
            case .uid(let uid): scalar(FlatPropertyList.uid, uid)
            case .array(let items):
                count(FlatPropertyList.array, items.count)
                for item in items { write(item) }
            case .dictionary(let dictionary):
                count(FlatPropertyList.dictionary, dictionary.count)
                for index in dictionary.keys.indices {
                    string(dictionary.keys[index])
                    write(dictionary.values[index])
                }
            }
        }
    }

    /// The value that the flat form in `bytes` describes, for a writer.
    ///
    /// - Throws: `PropertyListError` with the byte offset in `bytes`: `.truncated` where a value runs past the
    ///   end, `.invalidObject` for an unknown tag or bytes after the value, `.invalidString` for a string that
    ///   is not UTF-8, `.invalidKey` for a dictionary key that is not a string; `.limitExceeded(.depth)`, with
    ///   no place, past the default depth limit.
    static func decode(_ bytes: UnsafeRawBufferPointer) throws(PropertyListError) -> PropertyListValue {
        _ = try FlatPropertyListCheck(bytes, maximumDepth: PropertyListLimits.default.maximumDepth)
        var reader = Reader(bytes: bytes)
        return reader.value()
    }

    /// Builds values from flat bytes that `FlatPropertyListCheck` checked: every tag, count and length is taken
    /// as found.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func load<Payload: BitwiseCopyable>(_ type: Payload.Type) -> Payload {
            let payload = bytes.loadUnaligned(fromByteOffset: offset, as: Payload.self)
            offset += MemoryLayout<Payload>.size
            return payload
        }

        mutating func slice() -> UnsafeRawBufferPointer {
            let count = Int(load(UInt32.self))
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        mutating func string() -> String { String(decoding: slice(), as: UTF8.self) }

        mutating func value() -> PropertyListValue {
            switch load(UInt8.self) {
            case FlatPropertyList.string: return .string(string())
            case FlatPropertyList.int64: return .integer(PropertyListInteger(load(Int64.self)))
            case FlatPropertyList.uint64: return .integer(PropertyListInteger(load(UInt64.self)))
            case FlatPropertyList.real: return .real(load(Double.self))
            case FlatPropertyList.real32: return .real32(Float(load(Double.self)))
            case FlatPropertyList.boolFalse: return .bool(false)
            case FlatPropertyList.boolTrue: return .bool(true)
            case FlatPropertyList.date: return .date(Date(timeIntervalSinceReferenceDate: load(Double.self)))
            case FlatPropertyList.data: return .data(Data(slice()))
            case FlatPropertyList.uid: return .uid(load(UInt64.self))
            case FlatPropertyList.array:
                let count = Int(load(UInt32.self))
                var items: [PropertyListValue] = []
                items.reserveCapacity(count)
                for _ in 0..<count { items.append(value()) }
                return .array(items)
            default:
                let count = Int(load(UInt32.self))
                var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
                for _ in 0..<count {
                    offset += 1  // The key's tag, a string's.
                    let key = string()
                    dictionary[key] = value()
                }
                return .dictionary(dictionary)
            }
        }
    }
}
