import SystemPackage
import SystemSupport

/// A binary property list (`bplist00`) read from a file a few kilobytes at a
/// time, for taking a handful of values out of a large file without reading
/// the rest of it.
///
/// Opening reads the file's last 4 KB and first 4 KB (`pread`), and checks
/// the header and the trailer as `BinaryPropertyListReader` does. Each call
/// of `object(_:)` then reads only the bytes of the one object it returns,
/// in 4 KB-aligned windows kept for later calls: a container gives the
/// numbers of its members, a data object its place in the file, not its
/// bytes. `bytesRead` counts every byte read from the file. Nothing is
/// memory-mapped, so the operating system's read counters see every byte.
///
/// The file stays open until this object is freed; a file that changes while
/// it is open may give an error (`.truncated`, `.io`) but never a crash.
public final class PartialBinaryPropertyList {
    /// One object, decoded without the objects it refers to.
    public enum Object: Hashable, Sendable {
        case bool(Bool)
        case integer(PropertyListInteger)
        /// A real, widened to 64 bits when it is stored in 32.
        case real(Double)
        /// A date, in seconds since 2001-01-01 00:00:00 UTC.
        case date(Double)
        /// A data object: where its bytes lie in the file (read them with `bytes(at:count:)`).
        case data(offset: Int, count: Int)
        case string(String)
        /// A keyed archive's object reference.
        case uid(UInt64)
        /// An array or set: the numbers of its members.
        case array([Int])
        /// A dictionary: the numbers of its keys and of its values, pairwise.
        case dictionary(keys: [Int], values: [Int])
    }

    /// The bytes read in one window: enough for the trailer and offset table
    /// of most files, and for the small objects at either end.
    public static let windowSize = 4096

    /// The path the file was opened at, byte for byte.
    public var path: FilePath { RawFileName.filePath(pathText) }
    /// The path the file was opened at as text for messages (bytes that are
    /// not UTF-8 carried as `RawFileName` carries them).
    package let pathText: String
    /// The file's size in bytes.
    public let size: Int
    /// How many objects the offset table lists.
    public let objectCount: Int
    /// The number of the top object.
    public let topObject: Int
    /// The limits applied.
    public let limits: PropertyListLimits
    /// The bytes read from the file so far.
    public var bytesRead: Int { file.bytesRead }

    // Unchecked: the class is not Sendable (one thread at a time), and no
    // method calls out of this file while it modifies `file`, so accesses
    // cannot overlap; the run-time check of each access was 12% of the
    // instructions of a document listing's summary (bench row n1).
    @exclusivity(unchecked) private var file: FileWindows
    private let offsetSize: Int
    private let referenceSize: Int
    /// Where the offset table starts: objects lie in `8..<offsetTableOffset`.
    private let offsetTableOffset: Int

    /// Opens the file at `path` (relative to the working directory) and reads
    /// its header and trailer. With `followingSymbolicLinks` false, a
    /// symbolic link at `path` is refused (`.io`) rather than followed.
    ///
    /// Costs an `open`, an `fstat` and one or two reads of at most 4 KB.
    ///
    /// - Throws: `PropertyListError` `.io` when the file cannot be opened or
    ///   read or is not a regular file; `.unrecognizedFormat`, `.truncated` or
    ///   `.invalidTrailer` as `BinaryPropertyListReader`, at the byte concerned.
    package convenience init(
        path: String, followingSymbolicLinks: Bool = true, limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        try self.init(path: path, relativeTo: nil, followingSymbolicLinks: followingSymbolicLinks, limits: limits)
    }

    /// `init(path:followingSymbolicLinks:limits:)` with `path` relative to the
    /// directory open as `directory` (the working directory when it is nil).
    package init(
        path: String, relativeTo directory: Int32?, followingSymbolicLinks: Bool = true,
        limits: PropertyListLimits = .default
    ) throws(PropertyListError) {
        var file = try FileWindows(
            path: path, relativeTo: directory ?? CurrentDirectory.descriptor, followingSymbolicLinks: followingSymbolicLinks)
        let trailer: Trailer
        do {
            trailer = try Self.readTrailer(of: &file, limits: limits)
        } catch {
            file.closeDescriptor()
            throw error
        }
        self.file = file
        self.pathText = path
        self.limits = limits
        size = file.size
        offsetSize = trailer.offsetSize
        referenceSize = trailer.referenceSize
        objectCount = trailer.objectCount
        topObject = trailer.topObject
        offsetTableOffset = trailer.offsetTableOffset
    }

    deinit { file.closeDescriptor() }

    // MARK: Objects

    /// Object number `index`, decoded without the objects it refers to.
    ///
    /// Reads the object's offset-table entry and its own bytes, except a
    /// data object's payload.
    ///
    /// - Throws: `PropertyListError` at the object's byte: `.invalidReference`
    ///   for an index or offset outside the file's objects, `.truncated`,
    ///   `.invalidObject`, `.invalidString` or `.invalidValue` for bytes the
    ///   full reader would refuse too; `.io` when the file cannot be read.
    public func object(_ index: Int) throws(PropertyListError) -> Object {
        let offset = try offset(ofObject: index)
        let marker = UInt8(truncatingIfNeeded: try unsigned(at: offset, size: 1))
        switch marker >> 4 {
        case 0x4:
            let header = try header(marker: marker, at: offset, itemSize: 1, what: "data")
            return .data(offset: header.payload, count: header.length)
        case 0x5:
            let header = try header(marker: marker, at: offset, itemSize: 1, what: "string")
            let characters = try bytes(at: header.payload, count: header.length)
            if let index = characters.firstIndex(where: { $0 >= 0x80 }) {
                throw PropertyListError(
                    .invalidString, at: .byteOffset(header.payload + index),
                    "byte 0x\(String(characters[index], radix: 16)) in an ASCII string (the string object starts at byte \(offset))")
            }
            return .string(String(decoding: characters, as: UTF8.self))
        case 0x6:
            let header = try header(marker: marker, at: offset, itemSize: 2, what: "string")
            return .string(try utf16String(try bytes(at: header.payload, count: 2 * header.length), payload: header.payload, objectOffset: offset))
        case 0xA, 0xB, 0xC:
            let header = try header(marker: marker, at: offset, itemSize: referenceSize, what: "array")
            return .array(try references(at: header.payload, count: header.length))
        case 0xD:
            let header = try header(marker: marker, at: offset, itemSize: 2 * referenceSize, what: "dictionary")
            return .dictionary(
                keys: try references(at: header.payload, count: header.length),
                values: try references(at: header.payload + header.length * referenceSize, count: header.length))
        default:
            // Refused before the shared decoder sees them, as this reader did
            // before it shared it: a null or fill marker with its hexadecimal
            // unpadded, a real of a wrong size before its bytes are counted.
            if marker >> 4 == 0x0, marker != 0x08, marker != 0x09 {
                throw invalid(offset, "marker 0x\(String(marker, radix: 16)) (null or fill) is not a value a property list can hold")
            }
            if marker >> 4 == 0x2, marker & 0x0F != 2, marker & 0x0F != 3 {
                throw invalid(offset, "a real of \(1 << Int(marker & 0x0F)) bytes; only 4 and 8 are valid")
            }
            switch try scalar(marker: marker, at: offset) {
            case .bool(let value): return .bool(value)
            case .integer(let value): return .integer(value)
            case .real32(let value): return .real(Double(value))
            case .real(let value): return .real(value)
            case .date(let seconds): return .date(seconds)
            case .uid(let value): return .uid(value)
            }
        }
    }

    /// `count` bytes of the file from `offset` (a data object's payload, say).
    ///
    /// Reads the 4 KB-aligned windows around them that were not read before.
    ///
    /// - Throws: `PropertyListError` `.truncated` when the range runs past the
    ///   end of the file, `.io` when the file cannot be read.
    public func bytes(at offset: Int, count: Int) throws(PropertyListError) -> [UInt8] {
        try file.bytes(at: offset, count: count)
    }

    // MARK: Layout

    private struct Trailer {
        var offsetSize: Int
        var referenceSize: Int
        var objectCount: Int
        var topObject: Int
        var offsetTableOffset: Int
    }

    /// Reads and checks the header and the trailer, with the checks and
    /// messages of `BinaryPropertyListScanner`.
    private static func readTrailer(of file: inout FileWindows, limits: PropertyListLimits) throws(PropertyListError) -> Trailer {
        let size = file.size
        try limits.checkInputSize(size, at: .byteOffset(0))
        // The last 4 KB first (trailer, offset table, the last objects): for a small file, the header too.
        let trailer = size - 32
        try file.readTail()
        guard size >= 7, try file.bytes(at: 0, count: 7).elementsEqual("bplist0".utf8) else {
            throw PropertyListError(.unrecognizedFormat, at: .byteOffset(0), "not a binary property list: it does not start with 'bplist0'")
        }
        guard size >= 8 + 1 + 1 + 32 else {
            throw PropertyListError(
                .truncated, at: .byteOffset(size),
                "the file is \(size) bytes, too short to hold an object, an offset table and the 32-byte trailer")
        }
        let trailerBytes = try file.bytes(at: trailer, count: 32)
        let layout = trailerBytes.withUnsafeBytes { bytes in
            Result { () throws(PropertyListError) in try BinaryPropertyListScanner.checkedTrailer(bytes, fileSize: size, limits: limits) }
        }
        let checked = try layout.get()
        return Trailer(
            offsetSize: checked.offsetSize, referenceSize: checked.referenceSize, objectCount: checked.objectCount,
            topObject: checked.topObject, offsetTableOffset: checked.offsetTableOffset)
    }

    /// Where object `index` starts, checked to lie in the object area.
    private func offset(ofObject index: Int) throws(PropertyListError) -> Int {
        guard index >= 0, index < objectCount else {
            throw PropertyListError(.invalidReference, at: .none, "object \(index) is not one of the \(objectCount) objects")
        }
        let position = offsetTableOffset + index * offsetSize
        let offset = try unsigned(at: position, size: offsetSize)
        guard offset >= 8, offset < UInt64(offsetTableOffset) else {
            throw PropertyListError(
                .invalidReference, at: .byteOffset(position),
                "object \(index) has offset \(offset), outside the object area 8..<\(offsetTableOffset)")
        }
        return Int(offset)
    }

    /// The length of the object whose marker `marker` is at `offset` and
    /// where its payload starts, checked to hold `length` items of
    /// `itemSize` bytes inside the object area.
    private func header(marker: UInt8, at offset: Int, itemSize: Int, what: String) throws(PropertyListError) -> (length: Int, payload: Int) {
        let (length, payload) = try lengthAndPayload(marker: marker, at: offset)
        try checkExtent(payload: payload, count: length, itemSize: itemSize, objectOffset: offset, what: what)
        return (length, payload)
    }

    private func references(at position: Int, count: Int) throws(PropertyListError) -> [Int] {
        guard count <= limits.maximumObjectCount else {
            throw PropertyListError(
                .limitExceeded(.objectCount), at: .byteOffset(position),
                "a container of \(count) members, over the limit of \(limits.maximumObjectCount)")
        }
        let raw = try bytes(at: position, count: count * referenceSize)
        var found: [Int] = []
        found.reserveCapacity(count)
        for item in 0..<count {
            var value: UInt64 = 0
            for byte in raw[(item * referenceSize)..<((item + 1) * referenceSize)] { value = value << 8 | UInt64(byte) }
            guard value < UInt64(objectCount) else {
                throw PropertyListError(
                    .invalidReference, at: .byteOffset(position + item * referenceSize),
                    "object reference \(value) is not one of the \(objectCount) objects")
            }
            found.append(Int(value))
        }
        return found
    }

    /// The string of the big-endian UTF-16 units in `bytes`, read from `payload`.
    private func utf16String(_ bytes: [UInt8], payload: Int, objectOffset: Int) throws(PropertyListError) -> String {
        guard !bytes.isEmpty else { return "" }
        let read = bytes.withUnsafeBytes { units in
            // Safe: bytes is not empty.
            BinaryPropertyListScanner.string(bigEndianUTF16: units.baseAddress!, count: units.count / 2)
        }
        guard let string = read.string else {
            throw BinaryPropertyListScanner.unpairedSurrogateError(unitAt: payload + 2 * read.unpairedAt, objectOffset: objectOffset)
        }
        return string
    }

    private func invalid(_ offset: Int, _ message: String) -> PropertyListError {
        PropertyListError(.invalidObject, at: .byteOffset(offset), message)
    }

}

extension PartialBinaryPropertyList: BinaryPropertyListByteSource {
    var objectsEnd: Int { offsetTableOffset }

    /// The big-endian unsigned integer of `size` (1 to 8) bytes at `offset`.
    func unsigned(at offset: Int, size: Int) throws(PropertyListError) -> UInt64 {
        try file.unsigned(at: offset, size: size)
    }
}

/// An open file read in 4 KB-aligned windows with `pread`, each kept once read.
private struct FileWindows {
    let path: String
    let size: Int
    private(set) var bytesRead = 0
    private let descriptor: Int32
    private var windows: [(start: Int, bytes: [UInt8])] = []

    /// Opens the regular file at `path`; closed by `closeDescriptor()`.
    init(path: String, relativeTo directory: Int32, followingSymbolicLinks: Bool) throws(PropertyListError) {
        self.path = path
        // Without waiting: a FIFO would hold the open until a writer came; here it is refused.
        do throws(SystemCallError) {
            descriptor = try DescriptorCalls.open(path, in: directory, options: followingSymbolicLinks ? [.nonBlocking] : [.nonBlocking, .noFollow])
        } catch {
            throw Self.systemError("cannot open", path, error)
        }
        let info: FileInfo
        do throws(SystemCallError) {
            info = try FileInfo.of(descriptor: descriptor, path: path)
        } catch {
            DescriptorCalls.close(descriptor)
            throw Self.systemError("cannot read the status of", path, error)
        }
        guard info.kind == .regular else {
            DescriptorCalls.close(descriptor)
            throw PropertyListError(.io, at: .none, "\(path) is not a regular file")
        }
        size = Int(info.size)
    }

    func closeDescriptor() {
        DescriptorCalls.close(descriptor)
    }

    /// `count` bytes of the file from `offset`.
    mutating func bytes(at offset: Int, count: Int) throws(PropertyListError) -> [UInt8] {
        guard offset >= 0, count >= 0, count <= size - offset else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "\(count) bytes from byte \(offset) run past the end of the \(size)-byte file")
        }
        let window = try window(covering: offset, count: count)
        let start = offset - windows[window].start
        return Array(windows[window].bytes[start..<(start + count)])
    }

    /// The big-endian unsigned integer of `size` (1 to 8) bytes at `offset`.
    mutating func unsigned(at offset: Int, size: Int) throws(PropertyListError) -> UInt64 {
        guard offset >= 0, size <= self.size - offset else {
            throw PropertyListError(.truncated, at: .byteOffset(offset), "\(size) bytes from byte \(offset) run past the end of the \(self.size)-byte file")
        }
        let window = try window(covering: offset, count: size)
        let start = offset - windows[window].start
        // window(covering:) gave a window holding start..<start + size.
        return windows[window].bytes.withUnsafeBytes { BinaryPropertyListScanner.readBigEndian($0, at: start, size: size) }
    }

    /// The index in `windows` of one holding `offset..<offset + count`,
    /// reading a new 4 KB-aligned one unless one holds it already. The
    /// caller has checked that the range lies inside the file.
    mutating func window(covering offset: Int, count: Int) throws(PropertyListError) -> Int {
        if let found = windows.firstIndex(where: { $0.start <= offset && offset + count <= $0.start + $0.bytes.count }) {
            return found
        }
        let start = offset / PartialBinaryPropertyList.windowSize * PartialBinaryPropertyList.windowSize
        let end = min(
            size, (offset + count + PartialBinaryPropertyList.windowSize - 1) / PartialBinaryPropertyList.windowSize * PartialBinaryPropertyList.windowSize)
        return try read(start..<end)
    }

    /// Reads the last 4 KB of the file (all of it when smaller).
    mutating func readTail() throws(PropertyListError) {
        guard size > 0 else { return }
        _ = try read(max(0, size - PartialBinaryPropertyList.windowSize)..<size)
    }

    /// Reads `range` of the file into a new window; returns its index.
    private mutating func read(_ range: Range<Int>) throws(PropertyListError) -> Int {
        let start = range.lowerBound
        var failure: PropertyListError?
        // Not zeroed first (a window is read for every document a listing opens): only what pread filled counts.
        let bytes = [UInt8](unsafeUninitializedCapacity: range.count) { buffer, initializedCount in
            initializedCount = 0
            do throws(SystemCallError) {
                // pread fills all of the buffer, or stops at the end of the file.
                let filled = try PositionalIO.read(descriptor, into: UnsafeMutableRawBufferPointer(buffer), at: UInt64(start), path: path)
                initializedCount = filled
                if filled < range.count {
                    failure = PropertyListError(.truncated, at: .byteOffset(start + filled), "\(path) became shorter while being read")
                }
            } catch {
                failure = Self.systemError("cannot read", path, error)
            }
        }
        if let failure { throw failure }
        bytesRead += bytes.count
        windows.append((start, bytes))
        return windows.count - 1
    }

    private static func systemError(_ action: String, _ path: String, _ error: SystemCallError) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action) \(path): \(error.reason)")
    }
}
