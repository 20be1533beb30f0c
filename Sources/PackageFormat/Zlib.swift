import CLibZ

// zlib behind a few internal types: raw deflate and inflate streams (the
// form a zip stores) allocated once and reset between entries, and CRC-32.

/// The CRC-32 of `bytes` continued from `checksum` (0 to start).
/// The corresponding C function is `crc32`.
func zipChecksum(_ bytes: UnsafeRawBufferPointer, continuing checksum: UInt32) -> UInt32 {
    guard let base = bytes.baseAddress, bytes.count > 0 else { return checksum }
    // Callers pass pieces of at most a read buffer, far below 4 GiB: the count fits zlib's `uInt`.
    return UInt32(truncatingIfNeeded: crc32(uLong(checksum), base.assumingMemoryBound(to: Bytef.self), uInt(bytes.count)))
}

/// One raw deflate stream, reused for entry after entry.
final class Deflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)

    init() {
        stream.initialize(to: z_stream())
        let result = ictkit_deflate_init_raw(stream, Z_DEFAULT_COMPRESSION)
        precondition(result == Z_OK, "deflateInit2 failed (\(result)): out of memory")
    }

    deinit {
        deflateEnd(stream)
        stream.deallocate()
        output.deallocate()
    }

    /// Deflates `input`, the next piece of one entry, handing the compressed
    /// bytes to `sink` as they come; `finishing` ends the entry's stream and
    /// readies the deflater for the next. The corresponding C function is `deflate`.
    func deflate(
        _ input: UnsafeRawBufferPointer, finishing: Bool,
        into sink: (UnsafeRawBufferPointer) throws(DocumentPackageError) -> Void
    ) throws(DocumentPackageError) {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        // Pieces are at most a read buffer, far below 4 GiB.
        stream.pointee.avail_in = uInt(input.count)
        while true {
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let result = CLibZ.deflate(stream, finishing ? Z_FINISH : Z_NO_FLUSH)
            guard result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR else {
                throw DocumentPackageError(.io, "cannot deflate (zlib error \(result))")
            }
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<produced])) }
            if finishing ? result == Z_STREAM_END : stream.pointee.avail_out != 0 { break }
        }
        if finishing { deflateReset(stream) }
    }
}

/// One raw inflate stream, reused for entry after entry.
final class Inflater {
    private let stream = UnsafeMutablePointer<z_stream>.allocate(capacity: 1)
    private let output = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 16)

    init() {
        stream.initialize(to: z_stream())
        let result = ictkit_inflate_init_raw(stream)
        precondition(result == Z_OK, "inflateInit2 failed (\(result)): out of memory")
    }

    deinit {
        inflateEnd(stream)
        stream.deallocate()
        output.deallocate()
    }

    /// Starts a new entry's stream.
    func reset() { inflateReset(stream) }

    /// Inflates `input`, the next piece of one entry's compressed bytes,
    /// handing the bytes to `sink` at most 256 KB at a time (so a sink that
    /// throws stops a bomb after that much). True once the stream has ended.
    /// The corresponding C function is `inflate`.
    ///
    /// - Throws: `DocumentPackageError` `.invalidArchive` when the bytes are
    ///   not a deflate stream; whatever `sink` throws.
    func inflate(
        _ input: UnsafeRawBufferPointer,
        into sink: (UnsafeRawBufferPointer) throws(DocumentPackageError) -> Void
    ) throws(DocumentPackageError) -> Bool {
        stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress?.assumingMemoryBound(to: Bytef.self))
        // Pieces are at most a read buffer, far below 4 GiB.
        stream.pointee.avail_in = uInt(input.count)
        while true {
            stream.pointee.next_out = output.baseAddress!.assumingMemoryBound(to: Bytef.self)
            stream.pointee.avail_out = uInt(output.count)
            let result = CLibZ.inflate(stream, Z_NO_FLUSH)
            guard result == Z_OK || result == Z_STREAM_END || result == Z_BUF_ERROR else {
                throw DocumentPackageError(.invalidArchive, "the entry's compressed bytes are not a deflate stream (zlib error \(result))")
            }
            let produced = output.count - Int(stream.pointee.avail_out)
            if produced > 0 { try sink(UnsafeRawBufferPointer(rebasing: output[0..<produced])) }
            if result == Z_STREAM_END { return true }
            // Out of input with room to spare: wait for the next piece.
            if stream.pointee.avail_out != 0 || result == Z_BUF_ERROR { return false }
        }
    }
}
