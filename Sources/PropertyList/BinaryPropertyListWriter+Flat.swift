extension BinaryPropertyListWriter {
    /// Encodes the value that the flat form in `flat` describes (the form
    /// `FlatPropertyListTag` names, which `ictkit.h` documents) as a binary
    /// property list, byte-identical to `encode(_:)` of that value, without
    /// building the value: the objects are numbered and uniqued by their
    /// bytes in `flat`, and written into one buffer of the exact size.
    ///
    /// A dictionary key met twice in one dictionary (the same bytes) keeps
    /// its first place and its last value, as building the dictionary would.
    ///
    /// - Returns: The file's bytes, which the caller frees with `deallocate()`.
    /// - Throws: `PropertyListError` with the byte offset in `flat`, as
    ///   `FlatPropertyListCheck` finds it, for bytes that are not the flat
    ///   form of one value; `.limitExceeded(.depth)` past `maximumDepth`;
    ///   `.limitExceeded(.objectCount)` for 2^32 - 1 values or more.
    ///   Cost: two passes over `flat` (its check, then the numbering) and one
    ///   over the objects, a hash table of the distinct scalars.
    package func encode(flat: UnsafeRawBufferPointer) throws(PropertyListError) -> UnsafeMutableBufferPointer<UInt8> {
        let check = try FlatPropertyListCheck(flat, maximumDepth: maximumDepth)
        // The scalar table keeps object numbers in 32 bits.
        guard check.valueCount < UInt32.max else {
            throw PropertyListError(
                .limitExceeded(.objectCount), at: .none, "\(check.valueCount) values are more than a binary property list is written with")
        }
        var numbering = FlatBinaryPropertyListNumbering(flat: flat, valueCount: check.valueCount)
        _ = numbering.number(at: 0)
        return numbering.emit()
    }
}

/// Numbers the objects of a checked flat value in CoreFoundation's order (see
/// `BinaryPropertyListWriter`), uniquing its scalars by their flat bytes, and
/// lays them out.
struct FlatBinaryPropertyListNumbering {
    /// One object of the table: where its value starts in the flat bytes and,
    /// for an array or dictionary, where its references start in `references`
    /// and how many members it has. A string's `first` and `second` are the
    /// dictionary (its object number) that last used it as a key and the
    /// key's place there, to find a key met twice in one dictionary.
    private struct Object {
        var offset: Int
        var first: Int
        var second: Int
    }

    private let flat: UnsafeRawBufferPointer
    private var objects: [Object] = []
    /// The containers' references: an array's members, a dictionary's keys then values (and, after a
    /// dictionary with a key met twice, the places left for its members that were not kept).
    private var references: [Int] = []
    /// The references the containers hold.
    private var referenceCount = 0
    /// The flat offsets of the values of the dictionaries being numbered, a stack.
    private var pendingValues: [Int] = []
    private var table: FlatScalarTable
    /// The bytes of the objects area but the references (whose size is known only at the end).
    private var objectBytes = 0

    init(flat: UnsafeRawBufferPointer, valueCount: Int) {
        self.flat = flat
        table = FlatScalarTable(expectedCount: valueCount)
        objects.reserveCapacity(valueCount)
    }

    // MARK: Reading the checked flat bytes

    // Safe, every read below: FlatPropertyListCheck proved each value lies within `flat`.

    @inline(__always)
    private func tag(at offset: Int) -> UInt8 { flat.load(fromByteOffset: offset, as: UInt8.self) }

    @inline(__always)
    private func word(at offset: Int) -> UInt64 { flat.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt64.self) }

    @inline(__always)
    private func count(at offset: Int) -> Int { Int(flat.loadUnaligned(fromByteOffset: offset &+ 1, as: UInt32.self)) }

    /// The bytes of the string or data at `offset`.
    @inline(__always)
    private func run(at offset: Int) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: flat.baseAddress! + (offset &+ 5), count: count(at: offset))
    }

    /// The offset just past the value at `offset`.
    private func skip(_ offset: Int) -> Int {
        switch tag(at: offset) {
        case FlatPropertyListTag.string, FlatPropertyListTag.data: return offset &+ 5 &+ count(at: offset)
        case FlatPropertyListTag.boolFalse, FlatPropertyListTag.boolTrue: return offset &+ 1
        case FlatPropertyListTag.array:
            var position = offset &+ 5
            for _ in 0..<count(at: offset) { position = skip(position) }
            return position
        case FlatPropertyListTag.dictionary:
            var position = offset &+ 5
            for _ in 0..<count(at: offset) { position = skip(skip(position)) }
            return position
        default: return offset &+ 9
        }
    }

    // MARK: Numbering

    /// Numbers the value at `offset` and what it holds; returns its number
    /// and the offset just past it.
    mutating func number(at offset: Int) -> (number: Int, end: Int) {
        switch tag(at: offset) {
        case FlatPropertyListTag.array: return numberArray(at: offset)
        case FlatPropertyListTag.dictionary: return numberDictionary(at: offset)
        case FlatPropertyListTag.uid:
            objectBytes &+= 1 &+ BinaryPropertyListEmitter.byteCount(word(at: offset))
            return (append(offset), offset &+ 9)
        default: return (numberScalar(at: offset), skip(offset))
        }
    }

    private mutating func append(_ offset: Int, _ first: Int = -1, _ second: Int = 0) -> Int {
        objects.append(Object(offset: offset, first: first, second: second))
        return objects.count &- 1
    }

    private mutating func numberArray(at offset: Int) -> (number: Int, end: Int) {
        let count = count(at: offset)
        let start = references.count
        let number = append(offset, start, count)
        objectBytes &+= Self.headerSize(count)
        referenceCount &+= count
        references.append(contentsOf: repeatElement(0, count: count))
        var position = offset &+ 5
        for index in 0..<count {
            (references[start &+ index], position) = self.number(at: position)
        }
        return (number, position)
    }

    private mutating func numberDictionary(at offset: Int) -> (number: Int, end: Int) {
        let count = count(at: offset)
        let start = references.count
        let number = append(offset, start, 0)
        references.append(contentsOf: repeatElement(0, count: count &* 2))
        let base = pendingValues.count
        var kept = 0
        var position = offset &+ 5
        for _ in 0..<count {
            let key = numberScalar(at: position)
            position = skip(position)
            if objects[key].first == number {
                // The same key again: its first place, this value.
                pendingValues[base &+ objects[key].second] = position
            } else {
                objects[key].first = number
                objects[key].second = kept
                references[start &+ kept] = key
                pendingValues.append(position)
                kept &+= 1
            }
            position = skip(position)
        }
        for index in 0..<kept {
            references[start &+ kept &+ index] = self.number(at: pendingValues[base &+ index]).number
        }
        pendingValues.removeLast(kept)
        objects[number].second = kept
        objectBytes &+= Self.headerSize(kept)
        referenceCount &+= kept &* 2
        return (number, position)
    }

    /// The uniquing identity of the scalar at `offset`: a kind (which
    /// PropertyListValue case, an integer above Int64.max apart) and, but for
    /// strings and data, 64 bits (reals by their bit pattern, so 0.0 and -0.0,
    /// and NaNs of different bits, stay apart, as do 1, 1.0 and true).
    @inline(__always)
    private func identity(at offset: Int) -> (kind: UInt8, bits: UInt64) {
        let tag = tag(at: offset)
        switch tag {
        case FlatPropertyListTag.boolFalse, FlatPropertyListTag.boolTrue: return (tag, 0)
        case FlatPropertyListTag.uint64:
            let bits = word(at: offset)
            // One not above Int64.max is the same integer as an INT64 one.
            return (bits > UInt64(Int64.max) ? FlatPropertyListTag.uint64 : FlatPropertyListTag.int64, bits)
        case FlatPropertyListTag.real32:
            let real = Float(flat.loadUnaligned(fromByteOffset: offset &+ 1, as: Double.self))
            return (tag, UInt64(real.bitPattern))
        case FlatPropertyListTag.string, FlatPropertyListTag.data: return (tag, 0)
        default: return (tag, word(at: offset))
        }
    }

    private mutating func numberScalar(at offset: Int) -> Int {
        let (kind, bits) = identity(at: offset)
        let isRun = kind == FlatPropertyListTag.string || kind == FlatPropertyListTag.data
        let hash = isRun ? table.hash(run(at: offset), kind: kind) : table.hash(bits, kind: kind)
        let found = table.find(hash: hash) { number in
            let other = objects[number].offset
            let (otherKind, otherBits) = identity(at: other)
            guard otherKind == kind else { return false }
            guard isRun else { return otherBits == bits }
            let mine = run(at: offset), theirs = run(at: other)
            return FlatScalarTable.equal(mine, theirs)
        }
        if let found { return found }
        let number = append(offset)
        table.insert(hash: hash, number: number)
        objectBytes &+= scalarSize(kind: kind, bits: bits, at: offset)
        return number
    }

    /// The bytes the scalar at `offset` takes in the file.
    private func scalarSize(kind: UInt8, bits: UInt64, at offset: Int) -> Int {
        switch kind {
        case FlatPropertyListTag.boolFalse, FlatPropertyListTag.boolTrue: return 1
        case FlatPropertyListTag.int64: return 1 &+ BinaryPropertyListEmitter.byteCount(bits)
        case FlatPropertyListTag.uint64: return 17
        case FlatPropertyListTag.real, FlatPropertyListTag.date: return 9
        case FlatPropertyListTag.real32: return 5
        case FlatPropertyListTag.data:
            let count = count(at: offset)
            return Self.headerSize(count) &+ count
        default:
            let bytes = run(at: offset)
            if UTF8Run.isASCII(bytes) { return Self.headerSize(bytes.count) &+ bytes.count }
            let units = UTF8Run.utf16Count(bytes)
            return Self.headerSize(units) &+ units &* 2
        }
    }

    /// The bytes of a marker with `count` in it, or followed by an integer holding it.
    @inline(__always)
    private static func headerSize(_ count: Int) -> Int {
        count < 15 ? 1 : 2 &+ BinaryPropertyListEmitter.byteCount(UInt64(count))
    }

    // MARK: Laying out

    /// The file: header, the objects in number order, offset table, trailer.
    consuming func emit() -> UnsafeMutableBufferPointer<UInt8> {
        let objectCount = objects.count
        let referenceSize = BinaryPropertyListEmitter.byteCount(UInt64(objectCount))
        // Safe from overflow: each term is at most a few times the flat bytes, which fit in memory.
        let tableOffset = 8 &+ objectBytes &+ referenceCount &* referenceSize
        let offsetSize = BinaryPropertyListEmitter.byteCount(UInt64(tableOffset))
        let size = tableOffset &+ objectCount &* offsetSize &+ 32
        let output = UnsafeMutableBufferPointer<UInt8>.allocate(capacity: size)
        var writer = FlatBinaryPropertyListOutput(base: output.baseAddress!)
        writer.bytes("bplist00")
        var tableEntry = output.baseAddress! + tableOffset
        objects.withUnsafeBufferPointer { objects in
            references.withUnsafeBufferPointer { references in
                for object in objects {
                    FlatBinaryPropertyListOutput.bigEndian(UInt64(writer.count), size: offsetSize, at: tableEntry)
                    tableEntry += offsetSize
                    let offset = object.offset
                    switch tag(at: offset) {
                    case FlatPropertyListTag.array:
                        writer.header(0xA0, count: object.second)
                        for index in object.first..<(object.first &+ object.second) {
                            writer.bigEndian(UInt64(references[index]), size: referenceSize)
                        }
                    case FlatPropertyListTag.dictionary:
                        writer.header(0xD0, count: object.second)
                        for index in object.first..<(object.first &+ object.second &* 2) {
                            writer.bigEndian(UInt64(references[index]), size: referenceSize)
                        }
                    default: emitScalar(at: offset, into: &writer)
                    }
                }
            }
        }
        precondition(writer.count == tableOffset, "the objects take the bytes counted for them")
        writer.count = tableOffset &+ objectCount &* offsetSize
        writer.bytes([0, 0, 0, 0, 0, 0, UInt8(offsetSize), UInt8(referenceSize)])
        writer.bigEndian(UInt64(objectCount), size: 8)
        writer.bigEndian(0, size: 8)  // The top object is always the first one numbered.
        writer.bigEndian(UInt64(tableOffset), size: 8)
        return output
    }

    private func emitScalar(at offset: Int, into writer: inout FlatBinaryPropertyListOutput) {
        let tag = tag(at: offset)
        switch tag {
        case FlatPropertyListTag.boolFalse: writer.byte(0x08)
        case FlatPropertyListTag.boolTrue: writer.byte(0x09)
        case FlatPropertyListTag.int64: writer.integer(word(at: offset))
        case FlatPropertyListTag.uint64:
            let bits = word(at: offset)
            if bits > UInt64(Int64.max) {
                writer.byte(0x14)
                writer.bigEndian(0, size: 8)
                writer.bigEndian(bits, size: 8)
            } else {
                writer.integer(bits)
            }
        case FlatPropertyListTag.real:
            writer.byte(0x23)
            writer.bigEndian(word(at: offset), size: 8)
        case FlatPropertyListTag.real32:
            writer.byte(0x22)
            let real = Float(flat.loadUnaligned(fromByteOffset: offset &+ 1, as: Double.self))
            writer.bigEndian(UInt64(real.bitPattern), size: 4)
        case FlatPropertyListTag.date:
            writer.byte(0x33)
            writer.bigEndian(word(at: offset), size: 8)
        case FlatPropertyListTag.uid:
            let uid = word(at: offset)
            let size = BinaryPropertyListEmitter.byteCount(uid)
            writer.byte(0x80 | UInt8(size &- 1))
            writer.bigEndian(uid, size: size)
        case FlatPropertyListTag.data:
            let bytes = run(at: offset)
            writer.header(0x40, count: bytes.count)
            writer.bytes(bytes)
        default:
            let bytes = run(at: offset)
            if UTF8Run.isASCII(bytes) {
                writer.header(0x50, count: bytes.count)
                writer.bytes(bytes)
            } else {
                writer.header(0x60, count: UTF8Run.utf16Count(bytes))
                writer.utf16BigEndian(bytes)
            }
        }
    }
}

/// Writes into a buffer sized beforehand for everything written.
struct FlatBinaryPropertyListOutput {
    let base: UnsafeMutablePointer<UInt8>
    var count = 0

    // Safe, every write below: the buffer was sized for the objects counted (checked at the end of emit()).

    @inline(__always)
    mutating func byte(_ byte: UInt8) {
        base[count] = byte
        count &+= 1
    }

    @inline(__always)
    mutating func bytes(_ bytes: UnsafeRawBufferPointer) {
        if bytes.count > 0 { UnsafeMutableRawPointer(base + count).copyMemory(from: bytes.baseAddress!, byteCount: bytes.count) }
        count &+= bytes.count
    }

    mutating func bytes(_ text: StaticString) {
        bytes(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func bytes(_ array: [UInt8]) {
        array.withUnsafeBytes { bytes($0) }
    }

    @inline(__always)
    static func bigEndian(_ value: UInt64, size: Int, at target: UnsafeMutablePointer<UInt8>) {
        var shift = (size &- 1) &* 8
        var index = 0
        while shift >= 0 {
            target[index] = UInt8(truncatingIfNeeded: value &>> UInt64(shift))
            index &+= 1
            shift &-= 8
        }
    }

    @inline(__always)
    mutating func bigEndian(_ value: UInt64, size: Int) {
        Self.bigEndian(value, size: size, at: base + count)
        count &+= size
    }

    @inline(__always)
    mutating func integer(_ value: UInt64) {
        let size = BinaryPropertyListEmitter.byteCount(value)
        byte(0x10 | UInt8(size.trailingZeroBitCount))
        bigEndian(value, size: size)
    }

    @inline(__always)
    mutating func header(_ marker: UInt8, count: Int) {
        if count < 15 {
            byte(marker | UInt8(count))
        } else {
            byte(marker | 0x0F)
            integer(UInt64(count))
        }
    }

    /// Checked UTF-8 as UTF-16 code units, big-endian.
    mutating func utf16BigEndian(_ utf8: UnsafeRawBufferPointer) {
        var index = 0
        let end = utf8.count
        while index < end {
            let lead = UInt32(utf8[index])
            var scalar: UInt32
            if lead < 0x80 {
                scalar = lead
                index &+= 1
            } else if lead < 0xE0 {
                scalar = (lead & 0x1F) &<< 6 | UInt32(utf8[index &+ 1] & 0x3F)
                index &+= 2
            } else if lead < 0xF0 {
                scalar = (lead & 0x0F) &<< 12 | UInt32(utf8[index &+ 1] & 0x3F) &<< 6 | UInt32(utf8[index &+ 2] & 0x3F)
                index &+= 3
            } else {
                scalar =
                    (lead & 0x07) &<< 18 | UInt32(utf8[index &+ 1] & 0x3F) &<< 12 | UInt32(utf8[index &+ 2] & 0x3F) &<< 6
                    | UInt32(utf8[index &+ 3] & 0x3F)
                index &+= 4
            }
            if scalar >= 0x10000 {
                scalar &-= 0x10000
                unit(0xD800 | UInt16(truncatingIfNeeded: scalar &>> 10))
                unit(0xDC00 | UInt16(truncatingIfNeeded: scalar & 0x3FF))
            } else {
                unit(UInt16(truncatingIfNeeded: scalar))
            }
        }
    }

    @inline(__always)
    private mutating func unit(_ unit: UInt16) {
        base[count] = UInt8(truncatingIfNeeded: unit &>> 8)
        base[count &+ 1] = UInt8(truncatingIfNeeded: unit)
        count &+= 2
    }
}

/// Facts about checked UTF-8 bytes.
enum UTF8Run {
    /// Whether every byte is below 0x80, eight at a time.
    @inline(__always)
    static func isASCII(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var index = 0
        let count = bytes.count
        while count &- index >= 8 {
            guard bytes.loadUnaligned(fromByteOffset: index, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 else { return false }
            index &+= 8
        }
        while index < count {
            guard bytes[index] < 0x80 else { return false }
            index &+= 1
        }
        return true
    }

    /// The UTF-16 code units of checked UTF-8: one per byte that starts a
    /// scalar, and one more for each four-byte scalar (a surrogate pair).
    static func utf16Count(_ bytes: UnsafeRawBufferPointer) -> Int {
        var units = 0
        for byte in bytes {
            if byte & 0xC0 != 0x80 { units &+= 1 }
            if byte >= 0xF0 { units &+= 1 }
        }
        return units
    }
}
