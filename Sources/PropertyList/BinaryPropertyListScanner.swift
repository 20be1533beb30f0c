/// The validated layout of a binary property list (`bplist00`) in memory.
///
/// `init` checks the header, the trailer and every entry of the offset table
/// once, with overflow-checked arithmetic. After that, object offsets and
/// references can be read without further bounds checks on the table itself.
struct BinaryPropertyListScanner {
    static let headerSize = 8
    static let trailerSize = 32

    let bytes: UnsafeRawBufferPointer
    let offsetSize: Int
    let referenceSize: Int
    let objectCount: Int
    let topObject: Int
    let offsetTableOffset: Int

    /// The end of the object area: objects must lie before the offset table.
    var objectsEnd: Int { offsetTableOffset }

    init(_ bytes: UnsafeRawBufferPointer, limits: PropertyListLimits) throws(PropertyListError) {
        self.bytes = bytes
        guard bytes.count <= limits.maximumInputSize else {
            throw PropertyListError(.limitExceeded(.inputSize), at: .byteOffset(0),
                                    "the input is \(bytes.count) bytes, over the limit of \(limits.maximumInputSize)")
        }
        guard bytes.count >= 8, Self.hasBinaryHeader(bytes) else {
            throw PropertyListError(.unrecognizedFormat, at: .byteOffset(0), "not a binary property list: it does not start with 'bplist0'")
        }
        guard bytes.count >= Self.headerSize + 1 + 1 + Self.trailerSize else {
            throw PropertyListError(.truncated, at: .byteOffset(bytes.count),
                                    "the file is \(bytes.count) bytes, too short to hold an object, an offset table and the 32-byte trailer")
        }
        let trailer = bytes.count - Self.trailerSize
        let offsetSize = Int(bytes[trailer + 6])
        let referenceSize = Int(bytes[trailer + 7])
        let declaredCount = Self.readBigEndian(bytes, at: trailer + 8, size: 8)
        let declaredTop = Self.readBigEndian(bytes, at: trailer + 16, size: 8)
        let declaredTableOffset = Self.readBigEndian(bytes, at: trailer + 24, size: 8)

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
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 24),
                                    "the offset table offset \(declaredTableOffset) is outside the object area 9..<\(trailer)")
        }
        let tableOffset = Int(declaredTableOffset)
        // The table must fit between its offset and the trailer.
        let tableRoom = UInt64(trailer - tableOffset) / UInt64(offsetSize)
        guard declaredCount <= tableRoom else {
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 8),
                                    "the trailer announces \(declaredCount) objects but the offset table has room for \(tableRoom)")
        }
        let count = Int(declaredCount)
        guard count <= limits.maximumObjectCount else {
            throw PropertyListError(.limitExceeded(.objectCount), at: .byteOffset(trailer + 8),
                                    "the file holds \(count) objects, over the limit of \(limits.maximumObjectCount)")
        }
        guard declaredTop < declaredCount else {
            throw PropertyListError(.invalidTrailer, at: .byteOffset(trailer + 16),
                                    "the top object \(declaredTop) is not one of the \(count) objects")
        }
        // Every offset must point into the object area, after the header.
        var position = tableOffset
        for index in 0..<count {
            let offset = Self.readBigEndian(bytes, at: position, size: offsetSize)
            guard offset >= UInt64(Self.headerSize), offset < declaredTableOffset else {
                throw PropertyListError(.invalidReference, at: .byteOffset(position),
                                        "object \(index) has offset \(offset), outside the object area 8..<\(tableOffset)")
            }
            position &+= offsetSize  // Safe: the table was checked to fit before the trailer.
        }
        self.offsetSize = offsetSize
        self.referenceSize = referenceSize
        self.objectCount = count
        self.topObject = Int(declaredTop)
        self.offsetTableOffset = tableOffset
    }

    /// True when `bytes` start with `bplist0` and a version byte: as
    /// CoreFoundation does, any `bplist0?` version is read as `bplist00`.
    static func hasBinaryHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        bytes.count >= 8 && bytes.starts(with: "bplist0".utf8)
    }

    /// Reads a big-endian unsigned integer of `size` (1...8) bytes; the caller
    /// has checked that the bytes are there.
    @inline(__always)
    static func readBigEndian(_ bytes: UnsafeRawBufferPointer, at offset: Int, size: Int) -> UInt64 {
        var value: UInt64 = 0
        for index in offset..<(offset + size) {
            value = (value << 8) | UInt64(bytes[index])
        }
        return value
    }

    /// The offset of object `index`, which the caller has checked is below `objectCount`.
    @inline(__always)
    func offset(ofObject index: Int) -> Int {
        // Safe: `init` checked that every table entry is inside the object area.
        Int(truncatingIfNeeded: Self.readBigEndian(bytes, at: offsetTableOffset &+ index &* offsetSize, size: offsetSize))
    }

    /// The object reference stored at `position`, checked against the object count.
    @inline(__always)
    func reference(at position: Int) throws(PropertyListError) -> Int {
        let value = Self.readBigEndian(bytes, at: position, size: referenceSize)
        guard value < UInt64(objectCount) else {
            throw PropertyListError(.invalidReference, at: .byteOffset(position),
                                    "object reference \(value) is not one of the \(objectCount) objects")
        }
        return Int(value)
    }

    /// The kind nibble and the length of the object at `offset`, and where its
    /// payload starts. Lengths of 15 or more are stored as a following integer.
    func header(at offset: Int) throws(PropertyListError) -> (marker: UInt8, length: Int, payload: Int) {
        let marker = bytes[offset]
        let low = Int(marker & 0x0F)
        if low != 0x0F { return (marker, low, offset &+ 1) }  // Safe: offset < objectsEnd.
        let lengthMarkerOffset = offset + 1
        guard lengthMarkerOffset < objectsEnd else {
            throw PropertyListError(.truncated, at: .byteOffset(lengthMarkerOffset), "the object's length is cut off")
        }
        let lengthMarker = bytes[lengthMarkerOffset]
        guard lengthMarker & 0xF0 == 0x10, lengthMarker & 0x0F <= 3 else {
            throw PropertyListError(.invalidObject, at: .byteOffset(lengthMarkerOffset),
                                    "the object's length must be an integer of 1 to 8 bytes, not marker 0x\(String(lengthMarker, radix: 16))")
        }
        let size = 1 << Int(lengthMarker & 0x0F)
        guard lengthMarkerOffset + 1 + size <= objectsEnd else {
            throw PropertyListError(.truncated, at: .byteOffset(lengthMarkerOffset), "the object's length is cut off")
        }
        let length = Self.readBigEndian(bytes, at: lengthMarkerOffset + 1, size: size)
        guard length <= UInt64(objectsEnd) else {
            throw PropertyListError(.truncated, at: .byteOffset(offset),
                                    "the object claims \(length) elements, more than the file holds")
        }
        return (marker, Int(length), lengthMarkerOffset + 1 + size)
    }

    /// Checks that `count` items of `itemSize` bytes from `payload` lie in the object area.
    @inline(__always)
    func checkExtent(payload: Int, count: Int, itemSize: Int, objectOffset: Int, what: String) throws(PropertyListError) {
        let (bytesNeeded, overflow) = count.multipliedReportingOverflow(by: itemSize)
        guard !overflow, bytesNeeded <= objectsEnd - payload else {
            throw PropertyListError(.truncated, at: .byteOffset(objectOffset),
                                    "the \(what) at byte \(objectOffset) claims \(count) elements, which run past the object area")
        }
    }
}
