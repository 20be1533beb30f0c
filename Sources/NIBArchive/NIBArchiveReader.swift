/// Reads Apple's compiled-nib format, `NIBArchive`, from bytes.
///
/// The layout, as ibtool writes it and as UIKit's `UINibDecoder` reads it:
/// the 10-byte magic `NIBArchive`; ten little-endian 32-bit words (two
/// versions, then the count and byte offset of the objects, keys, values and
/// class names); then the four tables. Counts and lengths inside the tables
/// are varints of 7-bit groups, least significant first, whose last byte has
/// the high bit set.
///
/// The header is checked whole before any table is read: each table must
/// start inside the input, each count must fit in the bytes that remain, and
/// each table must end where the next one starts. Every index is checked
/// once, after the tables are read, so a `NIBArchiveFile` needs no checks
/// when used.
public struct NIBArchiveReader: Sendable {
    /// The magic a compiled nib starts with.
    public static let magic: [UInt8] = Array("NIBArchive".utf8)
    /// The size of the magic and header, the offset at which the first table starts.
    public static let headerSize = 50

    /// The limits kept while reading.
    public var limits: NIBArchiveLimits

    /// A reader keeping `limits`.
    public init(limits: NIBArchiveLimits = .default) { self.limits = limits }

    /// Whether `bytes` start with the `NIBArchive` magic.
    public static func hasMagic(_ bytes: some Collection<UInt8>) -> Bool { bytes.starts(with: magic) }

    /// Reads a whole compiled nib from `bytes`.
    ///
    /// - Throws: `NIBArchiveError` at the byte offset of the first problem:
    ///   `.notANibArchive`, `.truncated`, `.invalidHeader`, `.invalidVarint`,
    ///   `.invalidValueType`, `.invalidString`, `.invalidIndex`, or
    ///   `.limitExceeded` for the input's size or a table's count.
    public func read(_ bytes: UnsafeRawBufferPointer) throws(NIBArchiveError) -> NIBArchiveFile {
        guard bytes.count <= limits.maximumInputSize else {
            throw NIBArchiveError(
                .limitExceeded(.inputSize), at: nil,
                "the input is \(bytes.count) bytes, more than the limit of \(limits.maximumInputSize)")
        }
        var scanner = NIBArchiveScanner(bytes: bytes, limits: limits)
        return try scanner.readFile()
    }

    /// Reads a whole compiled nib from `bytes`, as `read(_:)` over a buffer.
    ///
    /// - Throws: `NIBArchiveError` as `read(_:)`.
    public func read(_ bytes: [UInt8]) throws(NIBArchiveError) -> NIBArchiveFile {
        do {
            return try bytes.withUnsafeBytes { buffer in try read(buffer) }
        } catch let error as NIBArchiveError {
            throw error
        } catch {
            preconditionFailure("read(_:) throws only NIBArchiveError")
        }
    }
}

/// The cursor over one input; `NIBArchiveReader`'s working state.
struct NIBArchiveScanner {
    let bytes: UnsafeRawBufferPointer
    let limits: NIBArchiveLimits
    var offset = 0

    init(bytes: UnsafeRawBufferPointer, limits: NIBArchiveLimits) {
        self.bytes = bytes
        self.limits = limits
    }

    /// A table's count and where it starts, from the header.
    struct Table {
        var name: String
        var count: Int
        var start: Int
        /// The fewest bytes one entry takes, to refuse a count the input cannot hold.
        var minimumEntrySize: Int
    }

    mutating func readFile() throws(NIBArchiveError) -> NIBArchiveFile {
        guard bytes.count >= NIBArchiveReader.magic.count, NIBArchiveReader.hasMagic(bytes) else {
            throw NIBArchiveError(.notANibArchive, at: 0, "the input does not start with the NIBArchive magic")
        }
        guard bytes.count >= NIBArchiveReader.headerSize else {
            throw NIBArchiveError(
                .truncated, at: bytes.count,
                "the input ends inside the header (\(bytes.count) of \(NIBArchiveReader.headerSize) bytes)")
        }
        offset = NIBArchiveReader.magic.count
        let formatVersion = word()
        let coderVersion = word()
        var tables: [Table] = []
        for (name, minimumEntrySize) in [("objects", 3), ("keys", 1), ("values", 2), ("class names", 2)] {
            let countOffset = offset
            let count = Int(word())
            let start = Int(word())
            guard count <= limits.maximumCount else {
                throw NIBArchiveError(
                    .limitExceeded(.count), at: countOffset,
                    "the header declares \(count) \(name), more than the limit of \(limits.maximumCount)")
            }
            guard start >= NIBArchiveReader.headerSize, start <= bytes.count else {
                throw NIBArchiveError(
                    .invalidHeader, at: countOffset + 4,
                    "the \(name) start at byte \(start), outside the input's \(NIBArchiveReader.headerSize)...\(bytes.count)")
            }
            // count ≤ 4 Mi and minimumEntrySize ≤ 3: no overflow.
            guard count * minimumEntrySize <= bytes.count - start else {
                throw NIBArchiveError(
                    .invalidHeader, at: countOffset,
                    "the header declares \(count) \(name) from byte \(start), more than the \(bytes.count - start) bytes left can hold")
            }
            tables.append(Table(name: name, count: count, start: start, minimumEntrySize: minimumEntrySize))
        }
        offset = tables[0].start
        let objects = try readObjects(tables[0])
        try expectEnd(of: tables[0], at: tables[1])
        let keys = try readKeys(tables[1])
        try expectEnd(of: tables[1], at: tables[2])
        let values = try readValues(tables[2])
        try expectEnd(of: tables[2], at: tables[3])
        let classNames = try readClassNames(tables[3])
        let file = NIBArchiveFile(
            formatVersion: formatVersion, coderVersion: coderVersion, objects: objects, keys: keys, values: values,
            classNames: classNames)
        try Self.checkIndices(file)
        return file
    }

    /// The tables follow one another: one that does not end where the next starts has a lying count or offset.
    private func expectEnd(of table: Table, at next: Table) throws(NIBArchiveError) {
        guard offset == next.start else {
            throw NIBArchiveError(
                .invalidHeader, at: offset,
                "the \(table.name) end at byte \(offset), but the header says the \(next.name) start at byte \(next.start)")
        }
    }

    /// A little-endian 32-bit word; the caller has checked the 4 bytes are there.
    private mutating func word() -> UInt32 {
        let value = UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        offset &+= 4  // offset + 4 ≤ bytes.count, checked by the caller.
        return value
    }

    private func truncated(_ what: String) -> NIBArchiveError {
        NIBArchiveError(.truncated, at: offset, "the input ends inside \(what)")
    }

    /// A varint: 7-bit groups, least significant first, the last byte with its high bit set.
    mutating func varint(_ what: @autoclosure () -> String) throws(NIBArchiveError) -> Int {
        let start = offset
        var result = 0
        var shift = 0
        while true {
            guard offset < bytes.count else { throw truncated(what()) }
            let byte = bytes[offset]
            offset &+= 1  // offset < bytes.count.
            result |= Int(byte & 0x7F) << shift
            if byte & 0x80 != 0 { break }
            shift += 7
            guard shift < 35 else {
                throw NIBArchiveError(.invalidVarint, at: start, "\(what()) is a varint longer than five bytes")
            }
        }
        guard result <= UInt32.max else {
            throw NIBArchiveError(.invalidVarint, at: start, "\(what()) is a varint larger than 32 bits")
        }
        return result
    }

    /// `count` bytes at the cursor, advancing past them.
    mutating func take(_ count: Int, _ what: @autoclosure () -> String) throws(NIBArchiveError) -> UnsafeRawBufferPointer {
        guard count <= bytes.count - offset else { throw truncated(what()) }
        let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + count)])
        offset &+= count  // checked above.
        return slice
    }

    private mutating func readObjects(_ table: Table) throws(NIBArchiveError) -> [NIBArchiveFile.Object] {
        var objects: [NIBArchiveFile.Object] = []
        objects.reserveCapacity(table.count)  // bounded by the bytes left, checked in the header.
        for index in 0..<table.count {
            let start = offset
            let classNameIndex = try varint("object \(index)'s class name index")
            let firstValueIndex = try varint("object \(index)'s first value index")
            let valueCount = try varint("object \(index)'s value count")
            objects.append(
                NIBArchiveFile.Object(
                    classNameIndex: classNameIndex, firstValueIndex: firstValueIndex, valueCount: valueCount, byteOffset: start))
        }
        return objects
    }

    private mutating func readKeys(_ table: Table) throws(NIBArchiveError) -> [String] {
        var keys: [String] = []
        keys.reserveCapacity(table.count)
        for index in 0..<table.count {
            let length = try varint("key \(index)'s length")
            let start = offset
            let text = try take(length, "key \(index)")
            guard let key = Self.utf8String(text) else {
                throw NIBArchiveError(.invalidString, at: start, "key \(index) is not UTF-8")
            }
            keys.append(key)
        }
        return keys
    }

    private mutating func readValues(_ table: Table) throws(NIBArchiveError) -> [NIBArchiveFile.Value] {
        var values: [NIBArchiveFile.Value] = []
        values.reserveCapacity(table.count)
        for index in 0..<table.count {
            let start = offset
            let keyIndex = try varint("value \(index)'s key index")
            let typeOffset = offset
            let type = try take(1, "value \(index)'s type")[0]
            let value: NIBArchiveValue
            switch type {
            case 0: value = .int8(Int8(bitPattern: try take(1, "value \(index)")[0]))
            case 1: value = .int16(Int16(littleEndian: try take(2, "value \(index)").loadUnaligned(as: Int16.self)))
            case 2: value = .int32(Int32(littleEndian: try take(4, "value \(index)").loadUnaligned(as: Int32.self)))
            case 3: value = .int64(Int64(littleEndian: try take(8, "value \(index)").loadUnaligned(as: Int64.self)))
            case 4: value = .bool(true)
            case 5: value = .bool(false)
            case 6:
                value = .float(Float(bitPattern: UInt32(littleEndian: try take(4, "value \(index)").loadUnaligned(as: UInt32.self))))
            case 7:
                value = .double(Double(bitPattern: UInt64(littleEndian: try take(8, "value \(index)").loadUnaligned(as: UInt64.self))))
            case 8:
                let length = try varint("value \(index)'s data length")
                value = .data(Array(try take(length, "value \(index)'s data")))
            case 9: value = .nil
            case 10: value = .object(Int(UInt32(littleEndian: try take(4, "value \(index)").loadUnaligned(as: UInt32.self))))
            default:
                throw NIBArchiveError(.invalidValueType, at: typeOffset, "value \(index) has the unknown type \(type)")
            }
            values.append(NIBArchiveFile.Value(keyIndex: keyIndex, value: value, byteOffset: start))
        }
        return values
    }

    private mutating func readClassNames(_ table: Table) throws(NIBArchiveError) -> [NIBArchiveFile.ClassName] {
        var classNames: [NIBArchiveFile.ClassName] = []
        classNames.reserveCapacity(table.count)
        for index in 0..<table.count {
            let length = try varint("class name \(index)'s length")
            let extraCount = try varint("class name \(index)'s extra count")
            guard extraCount <= (bytes.count - offset) / 4 else { throw truncated("class name \(index)'s extras") }
            var extras: [Int32] = []
            extras.reserveCapacity(extraCount)  // bounded by the bytes left, checked above.
            for _ in 0..<extraCount {
                extras.append(Int32(littleEndian: try take(4, "class name \(index)'s extras").loadUnaligned(as: Int32.self)))
            }
            let start = offset
            let text = try take(length, "class name \(index)")
            guard length > 0, text[length - 1] == 0 else {
                throw NIBArchiveError(.invalidString, at: start, "class name \(index) does not end with a zero byte")
            }
            guard let name = Self.utf8String(UnsafeRawBufferPointer(rebasing: text.dropLast())) else {
                throw NIBArchiveError(.invalidString, at: start, "class name \(index) is not UTF-8")
            }
            classNames.append(NIBArchiveFile.ClassName(name: name, extras: extras))
        }
        return classNames
    }

    /// `bytes` as a string when they are UTF-8 (decoding replaces what is not, so a changed result is refused).
    static func utf8String(_ bytes: some Collection<UInt8>) -> String? {
        let string = String(decoding: bytes, as: UTF8.self)
        return string.utf8.elementsEqual(bytes) ? string : nil
    }

    /// Every index in the tables, checked once so that users of the file need not.
    static func checkIndices(_ file: NIBArchiveFile) throws(NIBArchiveError) {
        for (index, object) in file.objects.enumerated() {
            guard object.classNameIndex < file.classNames.count else {
                throw NIBArchiveError(
                    .invalidIndex, at: object.byteOffset,
                    "object \(index) names class \(object.classNameIndex) of \(file.classNames.count)")
            }
            // Both are at most UInt32.max: no overflow in Int.
            guard object.firstValueIndex + object.valueCount <= file.values.count else {
                throw NIBArchiveError(
                    .invalidIndex, at: object.byteOffset,
                    "object \(index)'s values \(object.firstValueIndex)..<\(object.firstValueIndex + object.valueCount) "
                        + "are not all among the \(file.values.count) values")
            }
        }
        for (index, value) in file.values.enumerated() {
            guard value.keyIndex < file.keys.count else {
                throw NIBArchiveError(
                    .invalidIndex, at: value.byteOffset, "value \(index) names key \(value.keyIndex) of \(file.keys.count)")
            }
            if case .object(let target) = value.value, target >= file.objects.count {
                throw NIBArchiveError(
                    .invalidIndex, at: value.byteOffset, "value \(index) refers to object \(target) of \(file.objects.count)")
            }
        }
    }
}
