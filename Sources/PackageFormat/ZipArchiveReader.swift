import SystemSupport

/// One entry as the central directory declares it. Its sizes are claims:
/// the bytes are checked against them when read.
struct ZipEntryRecord {
    enum Kind { case directory, regularFile, symbolicLink }

    var path: String
    var kind: Kind
    /// The permission bits, when the zip was made on Unix.
    var permissions: UInt16?
    var modificationTime: FileTimestamp?
    var method: UInt16
    var checksum: UInt32
    var compressedSize: UInt64
    var uncompressedSize: UInt64
    var localHeaderOffset: UInt64
}

/// A file read through a 256 KB buffer: bytes asked for in file order cost
/// one `pread` per 256 KB.
private final class ReadWindow {
    let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)
    /// The file's bytes held in `buffer`: from `start`, `count` of them.
    private var start: UInt64 = 0
    private var count = 0

    deinit { buffer.deallocate() }

    /// `wanted` bytes (at most the buffer's size) at `offset` of a file of
    /// `fileSize` bytes, refilled from the file when they are not held.
    /// Valid until the next call.
    func bytes(at offset: UInt64, count wanted: Int, of descriptor: Descriptor, fileSize: UInt64, _ location: EntryLocation)
        throws(DocumentPackageError) -> UnsafeRawBufferPointer
    {
        if offset < start || offset + UInt64(wanted) > start + UInt64(count) {
            start = offset
            count = 0
            let available = Int(min(UInt64(buffer.count), fileSize - min(offset, fileSize)))
            do throws(SystemCallError) {
                count = try PositionalIO.read(
                    descriptor.rawValue, into: UnsafeMutableRawBufferPointer(rebasing: buffer[..<available]), at: offset,
                    path: location.fileSystemPath)
            } catch {
                throw location.error("read the zip", errno: error.code)
            }
            guard wanted <= count else { throw location.error(.invalidArchive, "the zip ends early") }
        }
        // Inside the buffer: checked above, or the buffer was just filled from `offset`.
        let first = Int(offset - start)
        return UnsafeRawBufferPointer(rebasing: buffer[first..<first + wanted])
    }
}

/// Reads a zip: the end records and every record of the central directory
/// are checked once, up front (every record inside the directory, every
/// field it needs present); an entry's bytes are read on request. Both are
/// streamed through 256 KB windows, and entries inflated piece by piece, so
/// memory stays small whatever the zip holds.
final class ZipArchiveReader {
    /// The zip's path as the caller named it, for errors.
    let path: String
    private let descriptor: Descriptor
    private let fileSize: UInt64
    /// Where the entries' bytes end: the start of the central directory.
    private let directoryOffset: UInt64
    private let directorySize: UInt64
    /// How many entries the end record declares.
    let declaredEntryCount: UInt64
    private let directoryWindow = ReadWindow()
    private let dataWindow = ReadWindow()
    /// Called after each entry's bytes are read whole and checked (`readContents`), for a progress count.
    var contentsRead: (() -> Void)?
    private let inflater = Inflater()
    /// MS-DOS date and time fields already converted: `mktime` reads the
    /// time zone file again on every call, and most entries share a few times.
    private var timestamps: [UInt32: FileTimestamp?] = [:]

    /// Opens the zip at `path` and reads its end records; later reads use
    /// the open descriptor, so a change of directory does not matter.
    ///
    /// - Throws: `DocumentPackageError` `.io` when the file cannot be read,
    ///   `.invalidArchive` when it has no valid end record or its central
    ///   directory lies outside the file.
    init(path: String) throws(DocumentPackageError) {
        self.path = path
        let location = EntryLocation(pathInPackage: "", fileSystemPath: path)
        descriptor = try FileSystem.openFileForReading(path, at: location)
        let identity = try FileSystem.status(of: descriptor, at: location)
        guard identity.fileType == FileIdentity.regularFileType else {
            throw location.error(.invalidArchive, "not a readable zip archive: not a regular file")
        }
        let fileSize = UInt64(identity.size)
        self.fileSize = fileSize
        // The end record is the last 22 bytes, but for a comment of up to 65,535 bytes after it.
        let tailSize = Int(min(fileSize, UInt64(ZipFormat.endSize + 0xFFFF)))
        let tail = try Self.read(descriptor, count: tailSize, at: fileSize - UInt64(tailSize), location)
        let opened = descriptor
        let end = try tail.withBytes { (raw) throws(DocumentPackageError) in
            try Self.endRecord(in: raw, tailStart: fileSize - UInt64(tailSize), descriptor: opened, location)
        }
        // The directory lies before the end records; its size is bounded by the file's.
        guard end.directoryOffset <= end.recordsStart, end.directorySize <= end.recordsStart - end.directoryOffset else {
            throw location.error(.invalidArchive, "not a readable zip archive: the central directory lies outside the file")
        }
        guard end.entryCount <= end.directorySize / UInt64(ZipFormat.centralHeaderSize) else {
            throw location.error(
                .invalidArchive,
                "not a readable zip archive: \(end.entryCount) entries cannot fit a \(end.directorySize)-byte central directory")
        }
        directoryOffset = end.directoryOffset
        declaredEntryCount = end.entryCount
        directorySize = end.directorySize
    }

    private struct EndRecord {
        var entryCount: UInt64
        var directorySize: UInt64
        var directoryOffset: UInt64
        /// Where the end records (ZIP64 ones included) begin.
        var recordsStart: UInt64
    }

    /// Finds the end record in the file's last bytes (the last signature
    /// whose comment length reaches the end exactly) and, when it says so,
    /// the ZIP64 end record it points to.
    private static func endRecord(
        in tail: UnsafeRawBufferPointer, tailStart: UInt64, descriptor: Descriptor,
        _ location: EntryLocation
    ) throws(DocumentPackageError) -> EndRecord {
        var candidate = tail.count - ZipFormat.endSize
        while candidate >= 0 {
            if tail.getLittleEndian(UInt32.self, at: candidate) == ZipFormat.endSignature,
                let commentLength = tail.getLittleEndian(UInt16.self, at: candidate + 20),
                candidate + ZipFormat.endSize + Int(commentLength) == tail.count
            {
                break
            }
            candidate -= 1
        }
        guard candidate >= 0 else { throw location.error(.invalidArchive, "not a readable zip archive: no end of central directory record") }
        // All fields are inside the 22 bytes found above.
        let count16 = tail.getLittleEndian(UInt16.self, at: candidate + 10)!
        let size32 = tail.getLittleEndian(UInt32.self, at: candidate + 12)!
        let offset32 = tail.getLittleEndian(UInt32.self, at: candidate + 16)!
        let endStart = tailStart + UInt64(candidate)
        guard tail.getLittleEndian(UInt16.self, at: candidate + 4) == 0, tail.getLittleEndian(UInt16.self, at: candidate + 6) == 0 else {
            throw location.error(.invalidArchive, "not a readable zip archive: it spans several disks")
        }
        let locatorOffset = candidate - ZipFormat.zip64LocatorSize
        guard locatorOffset >= 0, tail.getLittleEndian(UInt32.self, at: locatorOffset) == ZipFormat.zip64LocatorSignature else {
            return EndRecord(
                entryCount: UInt64(count16), directorySize: UInt64(size32), directoryOffset: UInt64(offset32),
                recordsStart: endStart)
        }
        // The locator's 20 bytes are inside `tail` (checked above).
        let zip64Offset = tail.getLittleEndian(UInt64.self, at: locatorOffset + 8)!
        let locatorStart = endStart - UInt64(ZipFormat.zip64LocatorSize)
        guard zip64Offset <= locatorStart, locatorStart - zip64Offset >= UInt64(ZipFormat.zip64EndSize) else {
            throw location.error(.invalidArchive, "not a readable zip archive: the ZIP64 end record lies outside the file")
        }
        let record = try read(descriptor, count: ZipFormat.zip64EndSize, at: zip64Offset, location)
        return try record.withBytes { (raw) throws(DocumentPackageError) in
            guard raw.getLittleEndian(UInt32.self, at: 0) == ZipFormat.zip64EndSignature else {
                throw location.error(.invalidArchive, "not a readable zip archive: no ZIP64 end record where the locator points")
            }
            // The 56 bytes were read whole.
            return EndRecord(
                entryCount: raw.getLittleEndian(UInt64.self, at: 32)!, directorySize: raw.getLittleEndian(UInt64.self, at: 40)!,
                directoryOffset: raw.getLittleEndian(UInt64.self, at: 48)!, recordsStart: zip64Offset)
        }
    }

    /// Exactly `count` bytes at `offset`.
    private static func read(_ descriptor: Descriptor, count: Int, at offset: UInt64, _ location: EntryLocation)
        throws(DocumentPackageError) -> [UInt8]
    {
        var bytes = [UInt8](repeating: 0, count: count)
        let read = bytes.withUnsafeMutableBytes { buffer in
            Result { () throws(SystemCallError) in
                try PositionalIO.read(descriptor.rawValue, into: buffer, at: offset, path: location.fileSystemPath)
            }
        }
        let filled: Int
        do throws(SystemCallError) { filled = try read.get() } catch { throw location.error("read the zip", errno: error.code) }
        guard filled == count else { throw location.error(.invalidArchive, "not a readable zip archive: the file ends early") }
        return bytes
    }

    // MARK: The central directory

    /// Each record of the central directory in order, checked: every field
    /// inside the directory, names UTF-8, no encryption, stored or deflated.
    /// Stops with an error at the first record that is not.
    func forEachRecord(_ body: (ZipEntryRecord) throws(DocumentPackageError) -> Void) throws(DocumentPackageError) {
        let location = EntryLocation(pathInPackage: "", fileSystemPath: path)
        // Offsets from the directory's start; `directoryOffset + directorySize` is inside the file (checked in `init`).
        var offset: UInt64 = 0
        for _ in 0..<declaredEntryCount {
            try body(try record(at: &offset, location))
        }
    }

    private func record(at offset: inout UInt64, _ location: EntryLocation) throws(DocumentPackageError) -> ZipEntryRecord {
        let start = offset
        func broken() -> DocumentPackageError {
            location.error(.invalidArchive, "not a readable zip archive: central directory record \(start) is broken")
        }
        guard directorySize - offset >= UInt64(ZipFormat.centralHeaderSize) else { throw broken() }
        let fixed = try directoryWindow.bytes(
            at: directoryOffset + offset, count: ZipFormat.centralHeaderSize, of: descriptor,
            fileSize: fileSize, location)
        guard fixed.getLittleEndian(UInt32.self, at: 0) == ZipFormat.centralHeaderSignature,
            let nameLength = fixed.getLittleEndian(UInt16.self, at: 28),
            let extraLength = fixed.getLittleEndian(UInt16.self, at: 30),
            let commentLength = fixed.getLittleEndian(UInt16.self, at: 32)
        else { throw broken() }
        // Three 16-bit lengths and the 46-byte header: under 200 KB, inside a window.
        let size = ZipFormat.centralHeaderSize + Int(nameLength) + Int(extraLength) + Int(commentLength)
        guard UInt64(size) <= directorySize - offset else {
            throw location.error(.invalidArchive, "not a readable zip archive: central directory record \(offset) runs past the directory")
        }
        let raw = try directoryWindow.bytes(at: directoryOffset + offset, count: size, of: descriptor, fileSize: fileSize, location)
        offset += UInt64(size)
        // The 46 fixed bytes are inside `raw` (checked above).
        func field16(_ at: Int) -> UInt16 { raw.getLittleEndian(UInt16.self, at: at)! }
        func field32(_ at: Int) -> UInt32 { raw.getLittleEndian(UInt32.self, at: at)! }
        let nameStart = ZipFormat.centralHeaderSize
        let nameBytes = UnsafeRawBufferPointer(rebasing: raw[nameStart..<nameStart + Int(nameLength)])
        // A name that is not UTF-8 (written without the UTF-8 flag, as Info-ZIP does) is kept byte for byte.
        let path = RawFileName.decoding(nameBytes)
        let entryLocation = EntryLocation(pathInPackage: path, fileSystemPath: self.path)
        let flags = field16(8)
        let method = field16(10)
        guard flags & ZipFormat.flagEncrypted == 0 else { throw entryLocation.error(.invalidArchive, "the zip entry is encrypted") }
        guard method == ZipFormat.methodStored || method == ZipFormat.methodDeflated else {
            throw entryLocation.error(.invalidArchive, "the zip entry is compressed with method \(method), neither stored nor deflated")
        }
        var compressedSize = UInt64(field32(20))
        var uncompressedSize = UInt64(field32(24))
        var localHeaderOffset = UInt64(field32(42))
        let extra = UnsafeRawBufferPointer(rebasing: raw[nameStart + Int(nameLength)..<nameStart + Int(nameLength) + Int(extraLength)])
        if uncompressedSize == UInt64(ZipFormat.zip64Marker32) || compressedSize == UInt64(ZipFormat.zip64Marker32)
            || localHeaderOffset == UInt64(ZipFormat.zip64Marker32)
        {
            guard let zip64 = Self.zip64Field(in: extra) else {
                throw entryLocation.error(.invalidArchive, "the zip entry's ZIP64 sizes are missing")
            }
            var next = 0
            func take(_ field: inout UInt64) throws(DocumentPackageError) {
                guard field == UInt64(ZipFormat.zip64Marker32) else { return }
                guard let value = zip64.getLittleEndian(UInt64.self, at: next) else {
                    throw entryLocation.error(.invalidArchive, "the zip entry's ZIP64 field is too short")
                }
                field = value
                next += 8
            }
            try take(&uncompressedSize)
            try take(&compressedSize)
            try take(&localHeaderOffset)
        }
        guard localHeaderOffset < directoryOffset else {
            throw entryLocation.error(.invalidArchive, "the zip entry's local header lies outside the entries' area")
        }
        let madeByUnix = field16(4) >> 8 == 3
        let external = field32(38)
        let mode = madeByUnix ? UInt16(truncatingIfNeeded: external >> 16) : 0
        let kind: ZipEntryRecord.Kind
        switch UInt32(mode) & FileIdentity.typeMask {
        case FileIdentity.symbolicLinkType: kind = .symbolicLink
        case FileIdentity.directoryType: kind = .directory
        default: kind = path.utf8.last == UInt8(ascii: "/") || external & ZipFormat.dosDirectoryAttribute != 0 ? .directory : .regularFile
        }
        let dosDateTime = UInt32(field16(14)) << 16 | UInt32(field16(12))
        if timestamps[dosDateTime] == nil {
            timestamps[dosDateTime] = ZipFormat.timestamp(dosDate: field16(14), time: field16(12))
        }
        return ZipEntryRecord(
            path: path, kind: kind, permissions: madeByUnix && mode & 0o777 != 0 ? mode & 0o777 : nil,
            modificationTime: timestamps[dosDateTime]!,
            method: method, checksum: field32(16), compressedSize: compressedSize,
            uncompressedSize: uncompressedSize, localHeaderOffset: localHeaderOffset)
    }

    /// The data of the ZIP64 extra field among `extra`'s fields, if any.
    private static func zip64Field(in extra: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer? {
        var offset = 0
        while let tag = extra.getLittleEndian(UInt16.self, at: offset), let size = extra.getLittleEndian(UInt16.self, at: offset + 2) {
            let start = offset + 4
            guard start + Int(size) <= extra.count else { return nil }
            if tag == ZipFormat.zip64ExtraTag { return UnsafeRawBufferPointer(rebasing: extra[start..<start + Int(size)]) }
            offset = start + Int(size)
        }
        return nil
    }

    // MARK: An entry's bytes

    /// Streams the entry's uncompressed bytes to `sink`, checking them
    /// against the record: no more and no fewer than its declared size, and
    /// its checksum. A bomb that declares less than it holds is stopped
    /// within 256 KB of its declared size.
    ///
    /// - Throws: `DocumentPackageError` `.invalidArchive` naming the entry
    ///   for bytes that disagree with the record or lie outside the file,
    ///   `.io` when the zip cannot be read; whatever `sink` throws.
    func readContents(of record: ZipEntryRecord, into sink: (UnsafeRawBufferPointer) throws(DocumentPackageError) -> Void)
        throws(DocumentPackageError)
    {
        let location = EntryLocation(pathInPackage: record.path, fileSystemPath: path)
        var dataOffset = try dataStart(of: record, location)
        // `dataStart` checked that the compressed bytes end inside the entries' area.
        let dataEnd = dataOffset + record.compressedSize
        var produced: UInt64 = 0
        var checksum: UInt32 = 0
        func take(_ bytes: UnsafeRawBufferPointer) throws(DocumentPackageError) {
            guard UInt64(bytes.count) <= record.uncompressedSize - produced else {
                throw location.error(
                    .invalidArchive,
                    "the zip entry holds more bytes than the \(record.uncompressedSize) it declares")
            }
            produced += UInt64(bytes.count)
            checksum = zipChecksum(bytes, continuing: checksum)
            try sink(bytes)
        }
        // An empty entry may be "deflated" with no bytes at all.
        var ended = record.method == ZipFormat.methodStored || record.compressedSize == 0 && record.uncompressedSize == 0
        if !ended { inflater.reset() }
        while dataOffset < dataEnd {
            let piece = try dataWindow.bytes(
                at: dataOffset, count: Int(min(dataEnd - dataOffset, UInt64(dataWindow.buffer.count))),
                of: descriptor, fileSize: fileSize, location)
            dataOffset += UInt64(piece.count)
            if record.method == ZipFormat.methodStored {
                try take(piece)
            } else {
                guard !ended else { throw location.error(.invalidArchive, "the zip entry's deflate stream ends before its bytes do") }
                do {
                    ended = try inflater.inflate(piece, into: take)
                } catch  where error.fileSystemPathText.isEmpty {
                    // The inflater's own error: say which entry.
                    throw location.error(error.code, error.message)
                }
            }
        }
        guard ended else { throw location.error(.invalidArchive, "the zip entry's deflate stream is cut short") }
        guard produced == record.uncompressedSize else {
            throw location.error(.invalidArchive, "the zip entry holds \(produced) bytes, not the \(record.uncompressedSize) it declares")
        }
        guard checksum == record.checksum else {
            throw location.error(.invalidArchive, "the zip entry's bytes do not match their checksum")
        }
        contentsRead?()
    }

    /// Where the entry's compressed bytes begin, after its local header,
    /// checking that they end before the central directory.
    private func dataStart(of record: ZipEntryRecord, _ location: EntryLocation) throws(DocumentPackageError) -> UInt64 {
        let header = try dataWindow.bytes(
            at: record.localHeaderOffset, count: ZipFormat.localHeaderSize, of: descriptor,
            fileSize: fileSize, location)
        guard header.getLittleEndian(UInt32.self, at: 0) == ZipFormat.localHeaderSignature,
            let nameLength = header.getLittleEndian(UInt16.self, at: 26),
            let extraLength = header.getLittleEndian(UInt16.self, at: 28)
        else { throw location.error(.invalidArchive, "the zip entry's local header is broken") }
        // `localHeaderOffset < directoryOffset` (checked with the record): these sums stay far below overflow.
        let start = record.localHeaderOffset + UInt64(ZipFormat.localHeaderSize) + UInt64(nameLength) + UInt64(extraLength)
        guard start <= directoryOffset, record.compressedSize <= directoryOffset - start else {
            throw location.error(.invalidArchive, "the zip entry's bytes run past the entries' area")
        }
        return start
    }
}
