import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// What the quick read of a binary property list (`BinaryPropertyListQuickDecoder`)
/// makes of the objects it walks: the one walk, with its checks and limits,
/// and two outputs — the `PropertyListValue` tree (`BinaryPropertyListTreeSink`)
/// and the flat form that libICTKitC hands to C callers (`BinaryPropertyListFlatSink`),
/// written straight from the object table with no tree in between. The
/// decoder is generic over its sink and specialised for each, so the tree's
/// walk costs what it cost before there were two.
///
/// A sink says nothing of errors: where it cannot write a value (a count the
/// flat form cannot hold) it returns nil, and the read gives up as it does
/// on anything unusual, leaving the careful decoder to read the file.
protocol BinaryPropertyListQuickSink {
    /// What one value is made into: a `PropertyListValue`, or nothing (the
    /// flat sink has written it).
    associatedtype Value
    /// The members of one container as the walk gathers them.
    associatedtype Members
    /// One part of a large top-level container, read on a thread of its own.
    associatedtype Part: Sendable
    /// What a whole read gives.
    associatedtype Output

    /// Whether a dictionary's keys are given before each of its values
    /// (`key(_:)`), as the flat form lays them, rather than all at its end.
    static var interleavesKeys: Bool { get }

    /// A sink for one part of a file whose object area is `objectBytes` long,
    /// read in `partCount` parts.
    init(objectBytes: Int, partCount: Int)

    /// A scalar (a boolean, integer, real, date or UID).
    mutating func scalar(_ value: PropertyListValue) -> Value
    /// The data (0x4), ASCII string (0x5) or UTF-16 string (0x6) object at
    /// `offset`, met for the first time, its bytes added to `producedBytes`;
    /// nil when it cannot be had or is past `maximumExpandedSize`.
    mutating func bytes(
        _ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int, producedBytes: inout Int, limits: PropertyListLimits
    ) -> Value?
    /// A string or data object decoded before, given again.
    mutating func repeated(_ value: PropertyListValue) -> Value?
    /// The start of an array of `count` members; nil when the output cannot hold it.
    mutating func beginArray(count: Int) -> Members?
    /// The start of a dictionary of `count` members; nil when the output cannot hold it.
    mutating func beginDictionary(count: Int) -> Members?
    /// The start of one part of the top-level container, of `count` members
    /// (the container's own start is written when the parts are joined).
    mutating func beginPart(count: Int) -> Members
    /// A dictionary's key, before its value (only when `interleavesKeys`).
    mutating func key(_ key: String) -> Bool
    /// Adds a member's value.
    mutating func append(_ value: Value, to members: inout Members)
    /// The array of `members`.
    mutating func endArray(_ members: Members) -> Value
    /// The dictionary of `keys` (distinct) and `members`, their values.
    mutating func endDictionary(keys: ContiguousArray<String>, _ members: Members) -> Value
    /// A part's members as its thread hands them back.
    mutating func finishPart(_ members: Members) -> Part
    /// Gives back what a part holds, when the read gives up.
    static func discard(_ part: Part)
    /// The top-level container of `count` members read in `parts`, in order;
    /// `keys` for a dictionary. Nil when the output cannot hold it.
    mutating func container(ofParts parts: consuming [Part], count: Int, keys: ContiguousArray<String>?) -> Value?
    /// The whole read's output, from the top object's value.
    mutating func finish(_ value: Value) -> Output
    /// Gives back what the sink holds (the read gave up, or its output was taken).
    func release()
}

/// The quick read's tree: each value as a `PropertyListValue`.
struct BinaryPropertyListTreeSink: BinaryPropertyListQuickSink {
    typealias Value = PropertyListValue
    typealias Members = ContiguousArray<PropertyListValue>
    typealias Part = ContiguousArray<PropertyListValue>
    typealias Output = PropertyListValue

    static var interleavesKeys: Bool { false }

    init(objectBytes: Int, partCount: Int) {}

    @inline(__always)
    func scalar(_ value: PropertyListValue) -> PropertyListValue { value }

    @inline(__always)
    func bytes(
        _ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int, producedBytes: inout Int, limits: PropertyListLimits
    ) -> PropertyListValue? {
        BinaryPropertyListQuickBytes.value(scanner, marker: marker, at: offset, producedBytes: &producedBytes, limits: limits)
    }

    @inline(__always)
    func repeated(_ value: PropertyListValue) -> PropertyListValue? { value }

    @inline(__always)
    func beginArray(count: Int) -> ContiguousArray<PropertyListValue>? {
        var members: ContiguousArray<PropertyListValue> = []
        members.reserveCapacity(count)  // Bounded: the caller checked the references lie in the object area.
        return members
    }

    @inline(__always)
    func beginDictionary(count: Int) -> ContiguousArray<PropertyListValue>? { beginArray(count: count) }

    func beginPart(count: Int) -> ContiguousArray<PropertyListValue> {
        var members: ContiguousArray<PropertyListValue> = []
        members.reserveCapacity(count)  // Bounded: a part of the references the caller checked.
        return members
    }

    @inline(__always)
    func key(_ key: String) -> Bool { true }

    @inline(__always)
    func append(_ value: PropertyListValue, to members: inout ContiguousArray<PropertyListValue>) {
        members.append(value)
    }

    @inline(__always)
    func endArray(_ members: ContiguousArray<PropertyListValue>) -> PropertyListValue {
        // Takes the members' storage; no element is copied.
        .array(Array(members))
    }

    @inline(__always)
    func endDictionary(keys: ContiguousArray<String>, _ members: ContiguousArray<PropertyListValue>) -> PropertyListValue {
        .dictionary(OrderedDictionary(uncheckedUniqueKeys: keys, values: members))
    }

    @inline(__always)
    func finishPart(_ members: ContiguousArray<PropertyListValue>) -> ContiguousArray<PropertyListValue> { members }

    static func discard(_ part: ContiguousArray<PropertyListValue>) {}

    func container(
        ofParts parts: consuming [ContiguousArray<PropertyListValue>], count: Int, keys: ContiguousArray<String>?
    ) -> PropertyListValue? {
        // The values are moved into place, not copied: a copy would retain
        // each, and reach every value's object in memory once more.
        guard let keys else {
            var elements = [PropertyListValue](repeating: .bool(false), count: count)
            elements.withUnsafeMutableBufferPointer { Self.move(&parts, into: $0) }
            return .array(elements)
        }
        var dictionary = OrderedDictionary(uncheckedUniqueKeys: keys, values: repeatElement(PropertyListValue.bool(false), count: count))
        dictionary.values.withUnsafeMutableBufferPointer { Self.move(&parts, into: $0) }
        return .dictionary(dictionary)
    }

    /// Swaps the values of `parts`, in order, with the placeholders in `buffer`.
    private static func move(_ parts: inout [ContiguousArray<PropertyListValue>], into buffer: UnsafeMutableBufferPointer<PropertyListValue>) {
        var index = 0
        for part in parts.indices {
            parts[part].withUnsafeMutableBufferPointer { values in
                for position in values.indices {
                    swap(&buffer[index], &values[position])  // Safe: the parts hold as many values as the buffer.
                    index &+= 1
                }
            }
        }
    }

    @inline(__always)
    func finish(_ value: PropertyListValue) -> PropertyListValue { value }

    func release() {}
}

/// The tags of the flat form (ictkit.h: `ictkit_flat_tag`): every value in
/// depth-first order, a tag byte and its payload in native byte order — a
/// string or data's `UInt32` length and bytes (a string's UTF-8), a
/// container's `UInt32` member count and its members (a dictionary's each key
/// then its value), a scalar's eight bytes (reals, `real32`s and dates as
/// `Double`), a boolean's none.
package enum FlatPropertyListTag {
    package static let string: UInt8 = 1
    package static let int64: UInt8 = 2
    package static let uint64: UInt8 = 3
    package static let real: UInt8 = 4
    package static let real32: UInt8 = 5
    package static let boolFalse: UInt8 = 6
    package static let boolTrue: UInt8 = 7
    package static let date: UInt8 = 8
    package static let data: UInt8 = 9
    package static let uid: UInt8 = 10
    package static let array: UInt8 = 11
    package static let dictionary: UInt8 = 12
}

/// Bytes of the flat form being written: a buffer from `allocate`, grown by
/// doubling, which the reader of the output frees with `deallocate()`.
/// @unchecked Sendable: a part's buffer is handed from its thread to the
/// joining one, and only that one touches it after.
struct FlatPropertyListBuffer: @unchecked Sendable {
    var start: UnsafeMutableRawPointer?
    var count = 0
    var capacity = 0

    /// Frees the bytes.
    func deallocate() { start?.deallocate() }
}

/// The quick read's flat form, written as the walk goes.
struct BinaryPropertyListFlatSink: BinaryPropertyListQuickSink {
    typealias Value = Void
    typealias Members = Void
    typealias Part = FlatPropertyListBuffer
    typealias Output = UnsafeMutableRawBufferPointer

    static var interleavesKeys: Bool { true }

    private var buffer = FlatPropertyListBuffer()
    /// The capacity of the first allocation.
    private let firstCapacity: Int

    /// A sink whose first buffer holds about twice a part's share of the
    /// object area (a reference of 1 to 2 bytes becomes a value of 1 to 9): most files need no growing.
    init(objectBytes: Int, partCount: Int) {
        firstCapacity = 64 &+ 2 &* (objectBytes / max(partCount, 1))  // Safe: the object area lies in memory.
    }

    /// Room for `bytes` more; the address to write them at.
    @inline(__always)
    private mutating func reserve(_ bytes: Int) -> UnsafeMutableRawPointer {
        if buffer.capacity &- buffer.count < bytes { grow(bytes) }
        return buffer.start! + buffer.count  // Safe: grow made room.
    }

    @inline(never)
    private mutating func grow(_ bytes: Int) {
        let capacity = max(buffer.capacity * 2, buffer.count + bytes, firstCapacity)
        let start = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
        if let old = buffer.start {
            start.copyMemory(from: old, byteCount: buffer.count)
            old.deallocate()
        }
        buffer.start = start
        buffer.capacity = capacity
    }

    @inline(__always)
    private mutating func write<Payload: BitwiseCopyable>(_ tag: UInt8, _ payload: Payload) {
        let at = reserve(1 &+ MemoryLayout<Payload>.size)
        at.storeBytes(of: tag, as: UInt8.self)
        at.storeBytes(of: payload, toByteOffset: 1, as: Payload.self)
        buffer.count &+= 1 &+ MemoryLayout<Payload>.size  // Safe: reserved.
    }

    @inline(__always)
    private mutating func writeTag(_ tag: UInt8) {
        reserve(1).storeBytes(of: tag, as: UInt8.self)
        buffer.count &+= 1  // Safe: reserved.
    }

    /// A string's or data's tag, length and bytes; false when the form's 32-bit length cannot hold them.
    @inline(__always)
    private mutating func write(_ tag: UInt8, bytes: UnsafeRawPointer?, count: Int) -> Bool {
        guard count <= UInt32.max else { return false }
        let at = reserve(5 &+ count)  // Safe: count is at most UInt32.max.
        at.storeBytes(of: tag, as: UInt8.self)
        at.storeBytes(of: UInt32(truncatingIfNeeded: count), toByteOffset: 1, as: UInt32.self)
        if let bytes { (at + 5).copyMemory(from: bytes, byteCount: count) }
        buffer.count &+= 5 &+ count  // Safe: reserved.
        return true
    }

    @inline(__always)
    private mutating func write(string: String) -> Bool {
        // A native string's UTF-8 in place, without the copy `withUTF8` on a `var` makes the optimiser keep.
        if let done = string.utf8.withContiguousStorageIfAvailable({ write(FlatPropertyListTag.string, bytes: $0.baseAddress, count: $0.count) }) {
            return done
        }
        var copy = string
        return copy.withUTF8 { write(FlatPropertyListTag.string, bytes: $0.baseAddress, count: $0.count) }
    }

    @inline(__always)
    mutating func scalar(_ value: PropertyListValue) {
        switch value {
        case .integer(let integer):
            write(integer.isAboveInt64Max ? FlatPropertyListTag.uint64 : FlatPropertyListTag.int64, integer.bitPattern)
        case .real(let real): write(FlatPropertyListTag.real, real)
        case .real32(let real): write(FlatPropertyListTag.real32, Double(real))
        case .bool(let bool): writeTag(bool ? FlatPropertyListTag.boolTrue : FlatPropertyListTag.boolFalse)
        case .date(let date): write(FlatPropertyListTag.date, date.timeIntervalSinceReferenceDate)
        case .uid(let uid): write(FlatPropertyListTag.uid, uid)
        // Not scalars: the decoder gives strings and data to `bytes` and `repeated`, containers to their calls.
        case .string, .data, .array, .dictionary: _ = repeated(value)
        }
    }

    mutating func bytes(
        _ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int, producedBytes: inout Int, limits: PropertyListLimits
    ) -> Void? {
        let kind = marker >> 4
        let unit = kind == 0x6 ? 2 : 1
        guard let (count, start) = BinaryPropertyListQuickBytes.extent(scanner, marker: marker, at: offset, unit: unit) else {
            return nil
        }
        producedBytes &+= count &* unit  // Safe: the extent lies in the object area.
        guard producedBytes <= limits.maximumExpandedSize else { return nil }
        let bytes = scanner.bytes.baseAddress! + start  // Safe: the extent lies in the bytes.
        switch kind {
        case 0x4: return write(FlatPropertyListTag.data, bytes: bytes, count: count) ? () : nil
        case 0x5:
            guard (try? scanner.checkASCII(start, count: count, objectOffset: offset)) != nil else { return nil }
            return write(FlatPropertyListTag.string, bytes: bytes, count: count) ? () : nil
        default:
            // Three bytes a unit at most, and one for the last four-byte store.
            guard count <= UInt32.max / 3 else { return nil }
            let at = reserve(5 &+ 3 &* count &+ 1)  // Safe: count ≤ UInt32.max / 3.
            let transcoded = BinaryPropertyListScanner.transcodeUTF16(
                bytes, count: count, into: (at + 5).assumingMemoryBound(to: UInt8.self))
            guard transcoded.unpairedAt < 0 else { return nil }
            at.storeBytes(of: FlatPropertyListTag.string, as: UInt8.self)
            at.storeBytes(of: UInt32(truncatingIfNeeded: transcoded.written), toByteOffset: 1, as: UInt32.self)
            buffer.count &+= 5 &+ transcoded.written  // Safe: reserved.
            return ()
        }
    }

    mutating func repeated(_ value: PropertyListValue) -> Void? {
        switch value {
        case .string(let string): return write(string: string) ? () : nil
        case .data(let data): return data.withUnsafeBytes { write(FlatPropertyListTag.data, bytes: $0.baseAddress, count: $0.count) } ? () : nil
        case .array(let items):
            guard beginArray(count: items.count) != nil else { return nil }
            for item in items where repeated(item) == nil { return nil }
            return ()
        case .dictionary(let dictionary):
            guard beginDictionary(count: dictionary.count) != nil else { return nil }
            for (key, item) in dictionary where !write(string: key) || repeated(item) == nil { return nil }
            return ()
        default:
            scalar(value)
            return ()
        }
    }

    @inline(__always)
    mutating func beginArray(count: Int) -> Void? {
        guard count <= UInt32.max else { return nil }
        write(FlatPropertyListTag.array, UInt32(truncatingIfNeeded: count))
        return ()
    }

    @inline(__always)
    mutating func beginDictionary(count: Int) -> Void? {
        guard count <= UInt32.max else { return nil }
        write(FlatPropertyListTag.dictionary, UInt32(truncatingIfNeeded: count))
        return ()
    }

    func beginPart(count: Int) {}

    @inline(__always)
    mutating func key(_ key: String) -> Bool { write(string: key) }

    @inline(__always)
    func append(_ value: Void, to members: inout Void) {}

    @inline(__always)
    func endArray(_ members: Void) {}

    @inline(__always)
    func endDictionary(keys: ContiguousArray<String>, _ members: Void) {}

    mutating func finishPart(_ members: Void) -> FlatPropertyListBuffer {
        defer { buffer = FlatPropertyListBuffer() }
        return buffer
    }

    static func discard(_ part: FlatPropertyListBuffer) { part.deallocate() }

    mutating func container(ofParts parts: consuming [FlatPropertyListBuffer], count: Int, keys: ContiguousArray<String>?) -> Void? {
        var total = 5
        for index in parts.indices { total &+= parts[index].count }  // Safe: each lies in memory.
        if count <= UInt32.max {
            _ = reserve(total)
            write(keys == nil ? FlatPropertyListTag.array : FlatPropertyListTag.dictionary, UInt32(truncatingIfNeeded: count))
            for index in parts.indices where parts[index].count > 0 {
                (buffer.start! + buffer.count).copyMemory(from: parts[index].start!, byteCount: parts[index].count)
                buffer.count &+= parts[index].count  // Safe: reserved.
            }
        }
        for index in parts.indices { parts[index].deallocate() }
        return count <= UInt32.max ? () : nil
    }

    mutating func finish(_ value: Void) -> UnsafeMutableRawBufferPointer {
        if buffer.start == nil { grow(1) }
        defer { buffer = FlatPropertyListBuffer() }
        return UnsafeMutableRawBufferPointer(start: buffer.start, count: buffer.count)
    }

    func release() { buffer.deallocate() }
}

/// The string and data objects of the quick read, as values.
enum BinaryPropertyListQuickBytes {
    /// The length and the payload's start of the data or string object at
    /// `offset`, checked to lie in the object area (`unit` bytes per element).
    @inline(__always)
    static func extent(_ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int, unit: Int) -> (count: Int, start: Int)? {
        guard let header = try? scanner.lengthAndPayload(marker: marker, at: offset),
            (try? scanner.checkExtent(payload: header.payload, count: header.length, itemSize: unit, objectOffset: offset, what: "")) != nil
        else { return nil }
        return (header.length, header.payload)
    }

    /// A data (0x4), ASCII string (0x5) or UTF-16 string (0x6) object, its
    /// bytes added to `producedBytes`; nil past `maximumExpandedSize`.
    static func value(
        _ scanner: BinaryPropertyListScanner, marker: UInt8, at offset: Int, producedBytes: inout Int, limits: PropertyListLimits
    ) -> PropertyListValue? {
        let unit = marker >> 4 == 0x6 ? 2 : 1
        guard let (count, start) = extent(scanner, marker: marker, at: offset, unit: unit) else { return nil }
        producedBytes &+= count &* unit  // Safe: checkExtent proved they lie in the object area.
        guard producedBytes <= limits.maximumExpandedSize else { return nil }
        switch marker >> 4 {
        // Safe: the extent was checked above. (Data's init from a buffer takes its generic path.)
        case 0x4: return .data(Data(bytes: scanner.bytes.baseAddress! + start, count: count))
        case 0x5: return (try? scanner.asciiString(start, count: count, objectOffset: offset)).map(PropertyListValue.string)
        default: return (try? scanner.utf16String(start, count: count, objectOffset: offset)).map(PropertyListValue.string)
        }
    }
}
