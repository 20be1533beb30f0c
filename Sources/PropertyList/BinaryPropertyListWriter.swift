import OrderedCollections

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// Writes binary property lists (`bplist00`) byte-identical to CoreFoundation's
/// output for the same value.
///
/// As CoreFoundation does, objects are numbered depth-first (a dictionary
/// first, then all its keys, then all its values); strings, numbers, dates,
/// data and booleans that occur more than once are stored once; arrays,
/// dictionaries and UIDs are never shared. Integers use the fewest bytes of
/// 1, 2, 4 or 8 (negative ones always 8, values above `Int64.max` 16);
/// offsets and references use the fewest bytes of 1, 2, 4 or 8 that hold
/// the largest one. Strings are ASCII when they can be, UTF-16BE otherwise.
/// Two values CoreFoundation would merge — the integer 1 and the real 1.0 —
/// are kept apart here, so nothing read back differs from what was written.
public struct BinaryPropertyListWriter: Sendable {
    /// The deepest nesting written; deeper values are refused.
    public var maximumDepth: Int

    /// Makes a writer.
    public init(maximumDepth: Int = PropertyListLimits.default.maximumDepth) {
        self.maximumDepth = maximumDepth
    }

    /// Encodes `value` as a binary property list.
    ///
    /// - Throws: `PropertyListError` with code `.limitExceeded(.depth)` when
    ///   containers nest deeper than `maximumDepth`, with the key path.
    public func encode(_ value: PropertyListValue) throws(PropertyListError) -> [UInt8] {
        var flattener = BinaryPropertyListFlattener(maximumDepth: maximumDepth)
        _ = try flattener.flatten(value, depth: 0)
        return BinaryPropertyListEmitter(objects: flattener.objects, estimatedSize: flattener.estimatedSize).emit()
    }

    /// Lays out an object table the caller numbered itself, for formats built
    /// on binary property lists that decide which scalars are stored once
    /// (keyed archives do: `NSKeyedArchiver` shares some equal strings and
    /// not others). Object 0 is the top object; no uniquing, reordering or
    /// depth check is done, so objects nobody refers to are kept too.
    ///
    /// Offsets, references and integers are sized as `encode(_:)` sizes them.
    /// A reference to an object outside the table is a programmer's error
    /// (a precondition failure), as is a `.scalar` holding an array or a
    /// dictionary.
    public func encode(objectTable: [BinaryPropertyListObject]) -> [UInt8] {
        precondition(!objectTable.isEmpty, "an object table needs a top object")
        var estimatedSize = 64
        for object in objectTable {
            switch object {
            case .scalar(.string(let string)): estimatedSize += string.utf8.count * 2 + 12
            case .scalar(.data(let data)): estimatedSize += data.count + 12
            case .scalar: estimatedSize += 20
            case .array(let children):
                precondition(children.allSatisfy { $0 >= 0 && $0 < objectTable.count }, "a reference outside the object table")
                estimatedSize += children.count * 4 + 16
            case .dictionary(let keys, let values):
                precondition(keys.count == values.count, "a dictionary needs one value for each key")
                let inTable = { (reference: Int) in reference >= 0 && reference < objectTable.count }
                precondition(keys.allSatisfy(inTable) && values.allSatisfy(inTable), "a reference outside the object table")
                estimatedSize += keys.count * 8 + 16
            }
        }
        return BinaryPropertyListEmitter(objects: objectTable, estimatedSize: estimatedSize).emit()
    }
}

/// One object of a binary property list's object table, its children given
/// by their numbers in the table (see `BinaryPropertyListWriter.encode(objectTable:)`).
public enum BinaryPropertyListObject: Hashable, Sendable {
    /// A string, number, boolean, date, data or UID.
    case scalar(PropertyListValue)
    /// An array of the objects with these numbers.
    case array([Int])
    /// A dictionary: the key objects' and the value objects' numbers, pairwise.
    case dictionary(keys: [Int], values: [Int])
}

/// A string compared and hashed by its exact Unicode scalars, as
/// CoreFoundation compares strings when it uniques them (Swift's `==` would
/// merge canonically equivalent spellings).
private struct ExactString: Hashable {
    let string: String
    static func == (lhs: Self, rhs: Self) -> Bool { lhs.string.utf8.elementsEqual(rhs.string.utf8) }
    func hash(into hasher: inout Hasher) {
        var copy = string
        copy.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}

/// The identity under which a scalar is stored once.
private enum UniquingKey: Hashable {
    case string(ExactString)
    case integer(PropertyListInteger)
    case real(UInt64)
    case real32(UInt32)
    case bool(Bool)
    case date(UInt64)
    case data(Data)
}

/// Numbers the objects of a value in CoreFoundation's order.
struct BinaryPropertyListFlattener {
    let maximumDepth: Int
    private(set) var objects: [BinaryPropertyListObject] = []
    private var uniqued: [UniquingKey: Int] = [:]
    /// A rough size of the output, to reserve the buffer once.
    private(set) var estimatedSize = 64

    init(maximumDepth: Int) { self.maximumDepth = maximumDepth }

    mutating func flatten(_ value: PropertyListValue, depth: Int) throws(PropertyListError) -> Int {
        let key: UniquingKey
        switch value {
        case .string(let string): key = .string(ExactString(string: string))
        case .integer(let integer): key = .integer(integer)
        case .real(let real): key = .real(real.bitPattern)
        case .real32(let real): key = .real32(real.bitPattern)
        case .bool(let bool): key = .bool(bool)
        case .date(let date): key = .date(date.timeIntervalSinceReferenceDate.bitPattern)
        case .data(let data): key = .data(data)
        case .uid:
            return append(.scalar(value))
        case .array(let elements):
            guard depth < maximumDepth else { throw depthError() }
            let number = append(.array([]))
            var children: [Int] = []
            children.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                do { children.append(try flatten(element, depth: depth + 1)) } catch { throw error.prefixed(by: .index(index)) }
            }
            objects[number] = .array(children)
            estimatedSize += children.count * 4
            return number
        case .dictionary(let dictionary):
            guard depth < maximumDepth else { throw depthError() }
            let number = append(.dictionary(keys: [], values: []))
            var keys: [Int] = []
            keys.reserveCapacity(dictionary.count)
            for key in dictionary.keys {
                keys.append(try flatten(.string(key), depth: depth + 1))
            }
            var values: [Int] = []
            values.reserveCapacity(dictionary.count)
            for (key, element) in dictionary {
                do { values.append(try flatten(element, depth: depth + 1)) } catch { throw error.prefixed(by: .key(key)) }
            }
            objects[number] = .dictionary(keys: keys, values: values)
            estimatedSize += keys.count * 8
            return number
        }
        if let existing = uniqued[key] { return existing }
        // Stored once, so counted once: a value that holds one 64 KB data
        // object 4 million times is written as one object, not reserved 275 GB for.
        switch value {
        case .string(let string): estimatedSize += string.utf8.count * 2 + 10
        case .data(let data): estimatedSize += data.count + 10
        default: break
        }
        let number = append(.scalar(value))
        uniqued[key] = number
        return number
    }

    private mutating func append(_ object: BinaryPropertyListObject) -> Int {
        objects.append(object)
        estimatedSize += 12
        return objects.count - 1
    }

    private func depthError() -> PropertyListError {
        PropertyListError(.limitExceeded(.depth), at: .none, "containers nest more than \(maximumDepth) deep")
    }
}

/// Lays numbered objects out as bytes: header, objects, offset table, trailer.
struct BinaryPropertyListEmitter {
    let objects: [BinaryPropertyListObject]
    private var output: [UInt8] = []
    private let referenceSize: Int

    init(objects: [BinaryPropertyListObject], estimatedSize: Int) {
        self.objects = objects
        referenceSize = Self.byteCount(UInt64(objects.count))
        output.reserveCapacity(estimatedSize)
    }

    /// The fewest bytes of 1, 2, 4 or 8 that hold `value`, as CoreFoundation chooses them.
    static func byteCount(_ value: UInt64) -> Int {
        if value <= 0xFF { return 1 }
        if value <= 0xFFFF { return 2 }
        if value <= 0xFFFF_FFFF { return 4 }
        return 8
    }

    consuming func emit() -> [UInt8] {
        output.append(contentsOf: "bplist00".utf8)
        var offsets: [Int] = []
        offsets.reserveCapacity(objects.count)
        for object in objects {
            offsets.append(output.count)
            switch object {
            case .scalar(let value): appendScalar(value)
            case .array(let children):
                appendHeader(0xA0, count: children.count)
                for child in children { appendBigEndian(UInt64(child), size: referenceSize) }
            case .dictionary(let keys, let values):
                appendHeader(0xD0, count: keys.count)
                for key in keys { appendBigEndian(UInt64(key), size: referenceSize) }
                for value in values { appendBigEndian(UInt64(value), size: referenceSize) }
            }
        }
        let tableOffset = output.count
        let offsetSize = Self.byteCount(UInt64(tableOffset))
        for offset in offsets { appendBigEndian(UInt64(offset), size: offsetSize) }
        output.append(contentsOf: [0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        appendBigEndian(UInt64(objects.count), size: 8)
        appendBigEndian(0, size: 8)  // The top object is always the first one numbered.
        appendBigEndian(UInt64(tableOffset), size: 8)
        return output
    }

    private mutating func appendBigEndian(_ value: UInt64, size: Int) {
        var shift = (size - 1) * 8
        while shift >= 0 {
            output.append(UInt8(truncatingIfNeeded: value >> UInt64(shift)))
            shift -= 8
        }
    }

    private mutating func appendInteger(_ value: UInt64) {
        let size = Self.byteCount(value)
        output.append(0x10 | UInt8(size.trailingZeroBitCount))
        appendBigEndian(value, size: size)
    }

    private mutating func appendHeader(_ marker: UInt8, count: Int) {
        if count < 15 {
            output.append(marker | UInt8(count))
        } else {
            output.append(marker | 0x0F)
            appendInteger(UInt64(count))
        }
    }

    private mutating func appendScalar(_ value: PropertyListValue) {
        switch value {
        case .bool(let bool): output.append(bool ? 0x09 : 0x08)
        case .integer(let integer):
            if integer.isAboveInt64Max {
                output.append(0x14)
                appendBigEndian(0, size: 8)
                appendBigEndian(integer.bitPattern, size: 8)
            } else {
                appendInteger(integer.bitPattern)  // Negative values have all high bits set: 8 bytes.
            }
        case .real(let real):
            output.append(0x23)
            appendBigEndian(real.bitPattern, size: 8)
        case .real32(let real):
            output.append(0x22)
            appendBigEndian(UInt64(real.bitPattern), size: 4)
        case .date(let date):
            output.append(0x33)
            appendBigEndian(date.timeIntervalSinceReferenceDate.bitPattern, size: 8)
        case .data(let data):
            appendHeader(0x40, count: data.count)
            output.append(contentsOf: data)
        case .string(let string):
            appendString(string)
        case .uid(let uid):
            let size = Self.byteCount(uid)
            output.append(0x80 | UInt8(size - 1))
            appendBigEndian(uid, size: size)
        case .array, .dictionary:
            preconditionFailure("containers are laid out by emit()")
        }
    }

    private mutating func appendString(_ string: String) {
        var copy = string
        let isASCII = copy.withUTF8 { utf8 in utf8.allSatisfy { $0 < 0x80 } }
        if isASCII {
            copy.withUTF8 { utf8 in
                appendHeader(0x50, count: utf8.count)
                output.append(contentsOf: utf8)
            }
        } else {
            appendHeader(0x60, count: string.utf16.count)
            for unit in string.utf16 {
                output.append(UInt8(unit >> 8))
                output.append(UInt8(unit & 0xFF))
            }
        }
    }
}
