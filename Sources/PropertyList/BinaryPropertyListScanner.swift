/// The validated layout of a binary property list (`bplist00`) in memory.
///
/// `init` checks the header and the trailer with overflow-checked arithmetic
/// and, for a whole-file read, every entry of the offset table once. After
/// that, object offsets can be read without further checks. A scanner made
/// for random access skips the table pass and checks each offset when it
/// is used, so opening a large file costs the same as opening a small one.
struct BinaryPropertyListScanner {
    static let headerSize = 8
    static let trailerSize = 32

    let bytes: UnsafeRawBufferPointer
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableOffset: Int
    /// True when `init` checked every offset, so `offset(ofObject:)` need not.
    let offsetsChecked: Bool

    /// The end of the object area: objects must lie before the offset table.
    var objectsEnd: Int { offsetTableOffset }

    init(_ bytes: UnsafeRawBufferPointer, limits: PropertyListLimits, checkingAllOffsets: Bool = true) throws(PropertyListError) {
        self.bytes = bytes
        try limits.checkInputSize(bytes.count, at: .byteOffset(0))
        guard Self.hasBinaryHeader(bytes) else {
            throw NonPropertyListFormat.detect(bytes)?.format.error(at: .byteOffset(0))
                ?? PropertyListError(.unrecognizedFormat, at: .byteOffset(0), "not a binary property list: it does not start with 'bplist0'")
        }
        guard bytes.count >= Self.headerSize + 1 + 1 + Self.trailerSize else {
            throw PropertyListError(
                .truncated, at: .byteOffset(bytes.count),
                "the file is \(bytes.count) bytes, too short to hold an object, an offset table and the 32-byte trailer")
        }
        let layout = try Self.checkedTrailer(
            UnsafeRawBufferPointer(rebasing: bytes[(bytes.count - Self.trailerSize)...]),
            fileSize: bytes.count, limits: limits)
        offsetSize = layout.offsetSize
        referenceSize = layout.referenceSize
        objectCount = layout.objectCount
        topObject = layout.topObject
        offsetTableOffset = layout.offsetTableOffset
        self.offsetsChecked = checkingAllOffsets
        if checkingAllOffsets { try checkOffsetTable() }
    }

    /// What the 32-byte trailer of a file of `fileSize` bytes says, each
    /// field checked (overflow-checked, in the order below), the error at the
    /// trailer byte concerned. Shared by the whole-file and the partial reader.
    static func checkedTrailer(_ trailerBytes: UnsafeRawBufferPointer, fileSize: Int, limits: PropertyListLimits)
        throws(PropertyListError) -> (offsetSize: Int, referenceSize: Int, objectCount: Int, topObject: Int, offsetTableOffset: Int)
    {
        precondition(trailerBytes.count == trailerSize, "the trailer is 32 bytes")
        let trailer = fileSize - trailerSize
        let offsetSize = Int(trailerBytes[6])
        let referenceSize = Int(trailerBytes[7])
        let declaredCount = readBigEndian(trailerBytes, at: 8, size: 8)
        let declaredTop = readBigEndian(trailerBytes, at: 16, size: 8)
        let declaredTableOffset = readBigEndian(trailerBytes, at: 24, size: 8)
        guard (1...8).contains(offsetSize) else {
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 6), "the trailer's offset size is \(offsetSize); it must be 1 to 8")
        }
        guard (1...8).contains(referenceSize) else {
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 7), "the trailer's object reference size is \(referenceSize); it must be 1 to 8")
        }
        guard declaredCount >= 1 else {
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 8), "the trailer says the file holds no objects")
        }
        guard declaredTableOffset >= UInt64(Self.headerSize + 1), declaredTableOffset < UInt64(trailer) else {
            throw PropertyListError(
                .invalidTrailer, at: .byteOffset(trailer + 24),
                "the offset table offset \(declaredTableOffset) is outside the object area 9..<\(trailer)")
        }
        let tableOffset = Int(declaredTableOffset)
        // The table must fit between its offset and the trailer.
        let tableRoom = UInt64(trailer - tableOffset) / UInt64(offsetSize)
        guard declaredCount <= tableRoom else {
            throw PropertyListError(
                .invalidTrailer, at: .byteOffset(trailer + 8),
                "the trailer announces \(declaredCount) objects but the offset table has room for \(tableRoom)")
        }
        let count = Int(declaredCount)
        guard count <= limits.maximumObjectCount else {
            throw PropertyListError(
                .limitExceeded(.objectCount), at: .byteOffset(trailer + 8),
                "the file holds \(count) objects, over the limit of \(limits.maximumObjectCount)")
        }
        guard declaredTop < declaredCount else {
            throw PropertyListError(
                .invalidTrailer, at: .byteOffset(trailer + 16),
                "the top object \(declaredTop) is not one of the \(count) objects")
        }
        return (offsetSize, referenceSize, count, Int(declaredTop), tableOffset)
    }

    /// Checks that every offset points into the object area, after the header:
    /// the smallest and largest offsets first, in one tight pass; only when
    /// they are out of range is the first bad entry looked for, to name it.
    private func checkOffsetTable() throws(PropertyListError) {
        var smallest = UInt64.max
        var largest: UInt64 = 0
        // Safe: init checked that the table fits before the trailer.
        Self.forEachBigEndian(bytes, at: offsetTableOffset, count: objectCount, size: offsetSize) { offset in
            smallest = min(smallest, offset)
            largest = max(largest, offset)
        }
        guard smallest < UInt64(Self.headerSize) || largest >= UInt64(offsetTableOffset) else { return }
        for index in 0..<objectCount {
            _ = try checkedOffset(ofObject: index)
        }
    }

    static func hasBinaryHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && bytes.starts(with: "bplist0".utf8)
    }

    /// Reads a big-endian unsigned integer of `size` (1...8) bytes; the caller
    /// has checked that the bytes are there.
    @inline(__always)
    static func readBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        switch size {
        case 1: return UInt64(bytes[offset])
        case 2: return UInt64(UInt16(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt16.self)))
        case 4: return UInt64(UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self)))
        case 8: return UInt64(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
        default:
            var value: UInt64 = 0
            for index in offset..<(offset + size) {
                value = (value << 8) | UInt64(bytes[index])
            }
            return value
        }
    }

    /// Calls `body` with each of the `count` big-endian unsigned integers of
    /// `size` (1...8) bytes from `start`, which the caller has checked lie in
    /// `bytes`: one loop per common size, so the size is not looked at for
    /// each integer (the offset table and the references of the shared-object
    /// pass are most of a large file's integers).
    @inline(__always)
    static func forEachBigEndian(
        _ bytes: UnsafeRawBufferPointer, at start: Int, count: Int, size: Int, _ body: (UInt64) -> Void
    ) {
        @inline(__always)
        func loop<Width: FixedWidthInteger & UnsignedInteger>(_: Width.Type) {
            var position = start
            for _ in 0..<count {
                body(UInt64(Width(bigEndian: bytes.loadUnaligned(fromByteOffset: position, as: Width.self))))
                position &+= MemoryLayout<Width>.size  // Safe: the caller checked all `count` lie in `bytes`.
            }
        }
        switch size {
        case 1: loop(UInt8.self)
        case 2: loop(UInt16.self)
        case 4: loop(UInt32.self)
        case 8: loop(UInt64.self)
        default:
            var position = start
            for _ in 0..<count {
                body(readBigEndian(bytes, at: position, size: size))
                position &+= size  // Safe: as above.
            }
        }
    }

    /// The offset of object `index`, which the caller has checked is below
    /// `objectCount`, as the table says it: checked already when
    /// `offsetsChecked`, else only by `checkedOffset(ofObject:)`.
    @inline(__always)
    func rawOffset(ofObject index: Int) -> Int {
        // Safe: init checked that the table fits before the trailer and index < objectCount.
        Int(truncatingIfNeeded: Self.readBigEndian(bytes, at: offsetTableOffset &+ index &* offsetSize, size: offsetSize))
    }

    /// The offset of object `index` (below `objectCount`), checked to lie in
    /// the object area unless `init` checked the whole table already.
    @inline(__always)
    func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        let offset = rawOffset(ofObject: index)
        if offsetsChecked { return offset }
        return try checkedOffset(ofObject: index)
    }

    func checkedOffset(ofObject index: Int) throws(PropertyListError) -> Int {
        let position = offsetTableOffset + index * offsetSize
        let offset = Self.readBigEndian(bytes, at: position, size: offsetSize)
        guard offset >= UInt64(Self.headerSize), offset < UInt64(offsetTableOffset) else {
            throw PropertyListError(
                .invalidReference, at: .byteOffset(position),
                "object \(index) has offset \(offset), outside the object area 8..<\(offsetTableOffset)")
        }
        return Int(offset)
    }

    /// The object reference stored at `position`, checked against the object count.
    @inline(__always)
    func reference(at position: Int) throws(PropertyListError) -> Int {
        let value = Self.readBigEndian(bytes, at: position, size: referenceSize)
        guard value < UInt64(objectCount) else {
            throw PropertyListError(
                .invalidReference, at: .byteOffset(position),
                "object reference \(value) is not one of the \(objectCount) objects")
        }
        return Int(value)
    }

    /// The kind nibble and the length of the object at `offset`, and where its
    /// payload starts. Lengths of 15 or more are stored as a following integer.
    func header(at offset: Int) throws(PropertyListError) -> (marker: UInt8, length: Int, payload: Int) {
        let marker = bytes[offset]
        let (length, payload) = try lengthAndPayload(marker: marker, at: offset)
        return (marker, length, payload)
    }

    /// The references of the array, set or dictionary at `offset`: where they
    /// start and how many there are (a dictionary's keys and values both
    /// counted); nil for any other kind, or when they do not fit in the object
    /// area. A quick look for the pass that finds shared objects: problems are
    /// reported by the decoder when it reaches the object.
    @inline(__always)
    func referencesIfContainer(at offset: Int) -> (start: Int, count: Int)? {
        let marker = bytes[offset]
        let kind = marker >> 4
        guard kind >= 0xA, kind <= 0xD, kind != 0x0 else { return nil }
        var length = Int(marker & 0x0F)
        var start = offset &+ 1  // Safe: offset < objectsEnd.
        if length == 0x0F {
            guard start < objectsEnd else { return nil }
            let lengthMarker = bytes[start]
            guard lengthMarker & 0xF0 == 0x10, lengthMarker & 0x0F <= 3 else { return nil }
            let size = 1 << Int(lengthMarker & 0x0F)
            guard start + 1 + size <= objectsEnd else { return nil }
            let declared = Self.readBigEndian(bytes, at: start + 1, size: size)
            guard declared <= UInt64(objectsEnd) else { return nil }
            length = Int(declared)
            start += 1 + size
        }
        let count = kind == 0xD ? length * 2 : length
        let (needed, overflow) = count.multipliedReportingOverflow(by: referenceSize)
        guard !overflow, needed <= objectsEnd - start else { return nil }
        return (start, count)
    }
}

extension BinaryPropertyListScanner: BinaryPropertyListByteSource {
    @inline(__always)
    func unsigned(at offset: Int, size: Int) -> UInt64 { Self.readBigEndian(bytes, at: offset, size: size) }
}
