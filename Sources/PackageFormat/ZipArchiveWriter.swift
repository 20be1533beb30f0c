import SystemSupport

/// Writes a new zip in one pass: each entry's local header and bytes as it
/// is added, the central directory (kept in memory, under 100 bytes an entry
/// plus its name) and the end records at `finish()`. Nothing written is read
/// back, so the cost is linear in entries and bytes; ZIP64 records are used
/// where a count, size or offset needs them. A large file's checksum and
/// sizes are filled into its local header once known (one `pwrite`), or,
/// written to a stream (a pipe or device, which cannot seek), follow its
/// bytes in a data descriptor, as the Finder's and `ditto`'s zips have them.
final class ZipArchiveWriter {
    /// Files up to this size are read whole and stored when deflating does not shrink them.
    static let wholeFileLimit = 256 << 10
    private static let chunkSize = 256 << 10
    private static let bufferLimit = 1 << 20

    private let descriptor: Descriptor
    private let location: EntryLocation
    private let deflater = Deflater()
    /// Bytes written but not yet handed to the file.
    private var buffer: [UInt8] = []
    /// Bytes already in the file, before `buffer`.
    private var flushed: UInt64 = 0
    private var centralDirectory: [UInt8] = []
    private var entryCount = 0
    /// Written to a stream: nothing written is ever rewritten.
    private let streaming: Bool
    private let chunk = UnsafeMutableRawBufferPointer.allocate(byteCount: chunkSize, alignment: 16)

    /// A writer into `descriptor`, a new empty file, or with `streaming` a
    /// pipe or device written front to back; `location` names it in errors.
    init(descriptor: Descriptor, location: EntryLocation, streaming: Bool = false) {
        self.descriptor = descriptor
        self.location = location
        self.streaming = streaming
        buffer.reserveCapacity(Self.bufferLimit + Self.chunkSize)
    }

    deinit { chunk.deallocate() }

    private var position: UInt64 { flushed + UInt64(buffer.count) }

    /// A directory entry; `path` ends with `/`.
    func addDirectory(path: String, permissions: UInt16, modificationTime: FileTimestamp) throws(DocumentPackageError) {
        let mode = UInt32(0o040000) | UInt32(permissions & 0o7777)
        try addWhole(
            path: path, mode: mode, modificationTime: modificationTime, bytes: UnsafeRawBufferPointer(start: nil, count: 0),
            deflating: false)
    }

    /// A symbolic link entry holding its destination's bytes (as
    /// `RawFileName` carries them), stored.
    func addSymbolicLink(path: String, destination: String, modificationTime: FileTimestamp) throws(DocumentPackageError) {
        try RawFileName.bytes(destination).withBytes { (raw) throws(DocumentPackageError) in
            try addWhole(path: path, mode: 0o120777, modificationTime: modificationTime, bytes: raw, deflating: false)
        }
    }

    /// A regular file of `size` bytes, which `read(buffer, offset)` fills
    /// piece by piece (exactly `buffer.count` bytes from `offset`). Deflated;
    /// a file of at most `wholeFileLimit` bytes is stored instead when
    /// deflating does not make it smaller.
    func addFile(
        path: String, permissions: UInt16, modificationTime: FileTimestamp, size: Int64,
        read: (UnsafeMutableRawBufferPointer, Int64) throws(DocumentPackageError) -> Void
    ) throws(DocumentPackageError) {
        let mode = UInt32(0o100000) | UInt32(permissions & 0o7777)
        if size <= Self.wholeFileLimit {
            let whole = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<Int(size)])
            try read(whole, 0)
            try addWhole(
                path: path, mode: mode, modificationTime: modificationTime, bytes: UnsafeRawBufferPointer(whole),
                deflating: true)
            return
        }
        // Deflate can grow incompressible bytes a little: past this size the sizes go in a ZIP64 field from the start.
        let largeSizes = size > 0xF000_0000
        let headerOffset = position
        let name = try nameBytes(path)
        appendLocalHeader(
            name: name, method: ZipFormat.methodDeflated, modificationTime: modificationTime, checksum: 0,
            sizes: largeSizes ? nil : (0, 0), dataDescriptor: streaming)
        var checksum: UInt32 = 0
        var compressedSize: UInt64 = 0
        var done: Int64 = 0
        repeat {
            let count = Int(min(Int64(Self.chunkSize), size - done))
            let piece = UnsafeMutableRawBufferPointer(rebasing: chunk[0..<count])
            try read(piece, done)
            done += Int64(count)
            checksum = zipChecksum(UnsafeRawBufferPointer(piece), continuing: checksum)
            try deflater.deflate(UnsafeRawBufferPointer(piece), finishing: done == size) { (compressed) throws(DocumentPackageError) in
                compressedSize += UInt64(compressed.count)
                try append(compressed)
            }
        } while done < size
        if streaming {
            // The checksum and sizes follow the bytes (8-byte sizes where the header has a ZIP64 field).
            buffer.appendLittleEndian(ZipFormat.dataDescriptorSignature)
            buffer.appendLittleEndian(checksum)
            if largeSizes {
                buffer.appendLittleEndian(compressedSize)
                buffer.appendLittleEndian(UInt64(size))
            } else {
                buffer.appendLittleEndian(UInt32(compressedSize))
                buffer.appendLittleEndian(UInt32(size))
            }
            appendCentralRecord(
                name: name, method: ZipFormat.methodDeflated, modificationTime: modificationTime, checksum: checksum,
                compressedSize: compressedSize, size: UInt64(size), mode: mode, headerOffset: headerOffset, dataDescriptor: true)
            return
        }
        // Fill in the checksum and sizes now known: the header is behind the bytes just written.
        try flushBuffer()
        var patch: [UInt8] = []
        patch.appendLittleEndian(checksum)
        if largeSizes {
            try writeAt(patch, headerOffset + 14)
            patch = []
            patch.appendLittleEndian(UInt64(size))
            patch.appendLittleEndian(compressedSize)
            try writeAt(patch, headerOffset + UInt64(ZipFormat.localHeaderSize + name.count + 4))
        } else {
            patch.appendLittleEndian(UInt32(compressedSize))
            patch.appendLittleEndian(UInt32(size))
            try writeAt(patch, headerOffset + 14)
        }
        appendCentralRecord(
            name: name, method: ZipFormat.methodDeflated, modificationTime: modificationTime, checksum: checksum,
            compressedSize: compressedSize, size: UInt64(size), mode: mode, headerOffset: headerOffset)
    }

    /// An entry whose bytes are all in memory: its header written with its final sizes.
    private func addWhole(
        path: String, mode: UInt32, modificationTime: FileTimestamp, bytes: UnsafeRawBufferPointer,
        deflating: Bool
    ) throws(DocumentPackageError) {
        let name = try nameBytes(path)
        let checksum = zipChecksum(bytes, continuing: 0)
        var compressed: [UInt8] = []
        if deflating, bytes.count > 0 {
            try deflater.deflate(bytes, finishing: true) { (piece) throws(DocumentPackageError) in compressed.append(contentsOf: piece) }
        }
        let deflated = deflating && bytes.count > 0 && compressed.count < bytes.count
        let method = deflated ? ZipFormat.methodDeflated : ZipFormat.methodStored
        let compressedSize = UInt64(deflated ? compressed.count : bytes.count)
        let headerOffset = position
        appendLocalHeader(
            name: name, method: method, modificationTime: modificationTime, checksum: checksum,
            sizes: (UInt32(compressedSize), UInt32(bytes.count)))
        if deflated {
            try compressed.withBytes { (raw) throws(DocumentPackageError) in try append(raw) }
        } else {
            try append(bytes)
        }
        appendCentralRecord(
            name: name, method: method, modificationTime: modificationTime, checksum: checksum,
            compressedSize: compressedSize, size: UInt64(bytes.count), mode: mode, headerOffset: headerOffset)
    }

    /// The path's bytes (`RawFileName`: a name that is not UTF-8 as it is on
    /// disk), which a zip's 16-bit length field must hold.
    private func nameBytes(_ path: String) throws(DocumentPackageError) -> [UInt8] {
        let name = RawFileName.bytes(path)
        guard name.count <= Int(UInt16.max) else {
            throw DocumentPackageError(
                .invalidName, pathInPackage: path, fileSystemPathText: location.fileSystemPath,
                "the path is longer than the 65,535 bytes a zip entry's name can hold")
        }
        return name
    }

    /// The general-purpose flags of an entry named `name`: the UTF-8 flag
    /// when the name is UTF-8; a name that is not carries its bytes as they
    /// are, without it (as Info-ZIP writes such names).
    private static func flags(_ name: [UInt8], dataDescriptor: Bool) -> UInt16 {
        (String(validating: name, as: UTF8.self) == nil ? 0 : ZipFormat.flagUTF8) | (dataDescriptor ? ZipFormat.flagDataDescriptor : 0)
    }

    /// A local file header; nil `sizes` means a ZIP64 field holds them (filled in later).
    private func appendLocalHeader(
        name: [UInt8], method: UInt16, modificationTime: FileTimestamp, checksum: UInt32,
        sizes: (compressed: UInt32, uncompressed: UInt32)?, dataDescriptor: Bool = false
    ) {
        let (date, time) = ZipFormat.dosDateTime(modificationTime)
        buffer.appendLittleEndian(ZipFormat.localHeaderSignature)
        buffer.appendLittleEndian(sizes == nil ? ZipFormat.versionNeededZip64 : ZipFormat.versionNeeded)
        buffer.appendLittleEndian(Self.flags(name, dataDescriptor: dataDescriptor))
        buffer.appendLittleEndian(method)
        buffer.appendLittleEndian(time)
        buffer.appendLittleEndian(date)
        buffer.appendLittleEndian(checksum)
        buffer.appendLittleEndian(sizes?.compressed ?? ZipFormat.zip64Marker32)
        buffer.appendLittleEndian(sizes?.uncompressed ?? ZipFormat.zip64Marker32)
        buffer.appendLittleEndian(UInt16(name.count))
        buffer.appendLittleEndian(UInt16(sizes == nil ? 20 : 0))
        buffer.append(contentsOf: name)
        if sizes == nil {
            buffer.appendLittleEndian(ZipFormat.zip64ExtraTag)
            buffer.appendLittleEndian(UInt16(16))
            buffer.appendLittleEndian(UInt64(0))
            buffer.appendLittleEndian(UInt64(0))
        }
    }

    private func appendCentralRecord(
        name: [UInt8], method: UInt16, modificationTime: FileTimestamp, checksum: UInt32,
        compressedSize: UInt64, size: UInt64, mode: UInt32, headerOffset: UInt64, dataDescriptor: Bool = false
    ) {
        // The ZIP64 field holds, in this order, each value too large for its 32-bit field.
        var zip64: [UInt8] = []
        func field32(_ value: UInt64) -> UInt32 {
            guard value >= UInt64(ZipFormat.zip64Marker32) else { return UInt32(value) }
            zip64.appendLittleEndian(value)
            return ZipFormat.zip64Marker32
        }
        let size32 = field32(size)
        let compressedSize32 = field32(compressedSize)
        let offset32 = field32(headerOffset)
        let (date, time) = ZipFormat.dosDateTime(modificationTime)
        let isDirectory = mode & 0o170000 == 0o040000
        centralDirectory.appendLittleEndian(ZipFormat.centralHeaderSignature)
        centralDirectory.appendLittleEndian(ZipFormat.madeByUnix)
        centralDirectory.appendLittleEndian(zip64.isEmpty ? ZipFormat.versionNeeded : ZipFormat.versionNeededZip64)
        centralDirectory.appendLittleEndian(Self.flags(name, dataDescriptor: dataDescriptor))
        centralDirectory.appendLittleEndian(method)
        centralDirectory.appendLittleEndian(time)
        centralDirectory.appendLittleEndian(date)
        centralDirectory.appendLittleEndian(checksum)
        centralDirectory.appendLittleEndian(compressedSize32)
        centralDirectory.appendLittleEndian(size32)
        centralDirectory.appendLittleEndian(UInt16(name.count))
        centralDirectory.appendLittleEndian(UInt16(zip64.isEmpty ? 0 : 4 + zip64.count))
        centralDirectory.appendLittleEndian(UInt16(0))  // comment length
        centralDirectory.appendLittleEndian(UInt16(0))  // disk number
        centralDirectory.appendLittleEndian(UInt16(0))  // internal attributes
        centralDirectory.appendLittleEndian(mode << 16 | (isDirectory ? ZipFormat.dosDirectoryAttribute : 0))
        centralDirectory.appendLittleEndian(offset32)
        centralDirectory.append(contentsOf: name)
        if !zip64.isEmpty {
            centralDirectory.appendLittleEndian(ZipFormat.zip64ExtraTag)
            centralDirectory.appendLittleEndian(UInt16(zip64.count))
            centralDirectory.append(contentsOf: zip64)
        }
        entryCount += 1
    }

    /// Writes the central directory and the end records, and hands every
    /// byte to the file.
    func finish() throws(DocumentPackageError) {
        let directoryOffset = position
        let directorySize = UInt64(centralDirectory.count)
        try flushBuffer()
        try centralDirectory.withBytes { (raw) throws(DocumentPackageError) in
            try FileSystem.writeAll(raw, to: descriptor, at: location)
        }
        flushed += directorySize
        let needsZip64 =
            entryCount >= Int(ZipFormat.zip64Marker16) || directoryOffset >= UInt64(ZipFormat.zip64Marker32)
            || directorySize >= UInt64(ZipFormat.zip64Marker32)
        if needsZip64 {
            let zip64EndOffset = position
            buffer.appendLittleEndian(ZipFormat.zip64EndSignature)
            buffer.appendLittleEndian(UInt64(ZipFormat.zip64EndSize - 12))
            buffer.appendLittleEndian(ZipFormat.madeByUnix)
            buffer.appendLittleEndian(ZipFormat.versionNeededZip64)
            buffer.appendLittleEndian(UInt32(0))  // this disk
            buffer.appendLittleEndian(UInt32(0))  // the central directory's disk
            buffer.appendLittleEndian(UInt64(entryCount))
            buffer.appendLittleEndian(UInt64(entryCount))
            buffer.appendLittleEndian(directorySize)
            buffer.appendLittleEndian(directoryOffset)
            buffer.appendLittleEndian(ZipFormat.zip64LocatorSignature)
            buffer.appendLittleEndian(UInt32(0))  // the ZIP64 end record's disk
            buffer.appendLittleEndian(zip64EndOffset)
            buffer.appendLittleEndian(UInt32(1))  // disks in all
        }
        let count16 = needsZip64 ? ZipFormat.zip64Marker16 : UInt16(entryCount)
        buffer.appendLittleEndian(ZipFormat.endSignature)
        buffer.appendLittleEndian(UInt32(0))  // this disk, the central directory's disk
        buffer.appendLittleEndian(count16)
        buffer.appendLittleEndian(count16)
        buffer.appendLittleEndian(needsZip64 ? ZipFormat.zip64Marker32 : UInt32(directorySize))
        buffer.appendLittleEndian(needsZip64 ? ZipFormat.zip64Marker32 : UInt32(directoryOffset))
        buffer.appendLittleEndian(UInt16(0))  // comment length
        try flushBuffer()
    }

    private func append(_ bytes: UnsafeRawBufferPointer) throws(DocumentPackageError) {
        buffer.append(contentsOf: bytes)
        if buffer.count >= Self.bufferLimit { try flushBuffer() }
    }

    private func flushBuffer() throws(DocumentPackageError) {
        try buffer.withBytes { (raw) throws(DocumentPackageError) in try FileSystem.writeAll(raw, to: descriptor, at: location) }
        flushed += UInt64(buffer.count)
        buffer.removeAll(keepingCapacity: true)
    }

    /// `pwrite(2)` of bytes already flushed.
    private func writeAt(_ bytes: [UInt8], _ offset: UInt64) throws(DocumentPackageError) {
        let written = bytes.withUnsafeBytes { raw in
            Result { () throws(SystemCallError) in try PositionalIO.write(descriptor.rawValue, raw, at: offset, path: location.fileSystemPath) }
        }
        do throws(SystemCallError) { try written.get() } catch { throw location.error("write the zip", errno: error.code) }
    }
}
