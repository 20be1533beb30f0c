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
        var reader = Reader(bytes: bytes)
        let value = try reader.value(depth: 0)
        guard reader.offset == bytes.count else {
            throw PropertyListError(.invalidObject, at: .byteOffset(reader.offset), "bytes follow the flat value")
        }
        return value
    }

    /// Reads values from the flat form, checking every length against the bytes left.
    private struct Reader {
        let bytes: UnsafeRawBufferPointer
        var offset = 0

        mutating func load<Payload: BitwiseCopyable>(_ type: Payload.Type) throws(PropertyListError) -> Payload {
            guard bytes.count - offset >= MemoryLayout<Payload>.size else {
                throw PropertyListError(.truncated, at: .byteOffset(offset), "the flat value ends inside a value")
            }
            let payload = bytes.loadUnaligned(fromByteOffset: offset, as: Payload.self)
            offset += MemoryLayout<Payload>.size
            return payload
        }

        mutating func slice() throws(PropertyListError) -> UnsafeRawBufferPointer {
            let count = Int(try load(UInt32.self))
            guard bytes.count - offset >= count else {
                throw PropertyListError(.truncated, at: .byteOffset(offset), "the flat value ends inside \(count) bytes")
            }
            defer { offset += count }
            return UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + count])
        }

        mutating func string() throws(PropertyListError) -> String {
            let start = offset
            guard let string = String(validating: try slice(), as: UTF8.self) else {
                throw PropertyListError(.invalidString, at: .byteOffset(start), "a string is not UTF-8")
            }
            return string
        }

        mutating func value(depth: Int) throws(PropertyListError) -> PropertyListValue {
            let start = offset
            switch try load(UInt8.self) {
            case FlatPropertyList.string: return .string(try string())
            case FlatPropertyList.int64: return .integer(PropertyListInteger(try load(Int64.self)))
            case FlatPropertyList.uint64: return .integer(PropertyListInteger(try load(UInt64.self)))
            case FlatPropertyList.real: return .real(try load(Double.self))
            case FlatPropertyList.real32: return .real32(Float(try load(Double.self)))
            case FlatPropertyList.boolFalse: return .bool(false)
            case FlatPropertyList.boolTrue: return .bool(true)
            case FlatPropertyList.date: return .date(Date(timeIntervalSinceReferenceDate: try load(Double.self)))
            case FlatPropertyList.data: return .data(Data(try slice()))
            case FlatPropertyList.uid: return .uid(try load(UInt64.self))
            case let tag where tag == FlatPropertyList.array || tag == FlatPropertyList.dictionary:
                // No place: the caller's value is what nests too deep, and an offset in the flat bytes would say
                // nothing to it (a read value cannot: the readers have the same limit).
                guard depth < PropertyListLimits.default.maximumDepth else {
                    throw PropertyListError(
                        .limitExceeded(.depth), at: .none,
                        "the value nests deeper than \(PropertyListLimits.default.maximumDepth) levels")
                }
                let count = Int(try load(UInt32.self))
                // Each member takes at least one byte: a count beyond the bytes left is refused before reserving.
                guard count <= bytes.count - offset else {
                    throw PropertyListError(.truncated, at: .byteOffset(start), "the flat value ends inside \(count) members")
                }
                if tag == FlatPropertyList.array {
                    var items: [PropertyListValue] = []
                    items.reserveCapacity(count)
                    for _ in 0..<count { items.append(try value(depth: depth + 1)) }
                    return .array(items)
                }
                var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: count)
                for _ in 0..<count {
                    let keyOffset = offset
                    guard try load(UInt8.self) == FlatPropertyList.string else {
                        throw PropertyListError(.invalidKey, at: .byteOffset(keyOffset), "a dictionary key is not a string")
                    }
                    let key = try string()
                    dictionary[key] = try value(depth: depth + 1)
                }
                return .dictionary(dictionary)
            case let tag:
                throw PropertyListError(.invalidObject, at: .byteOffset(start), "\(tag) is not a flat value's tag")
            }
        }
    }
}
