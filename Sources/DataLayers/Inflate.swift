import CLibZ

/// How compressed bytes are wrapped: gzip (RFC 1952), zlib (RFC 1950) or bare DEFLATE (RFC 1951).
public enum CompressedForm: String, Hashable, Sendable, CaseIterable {
    /// A gzip member (or several, one after another, as `gzip` writes them concatenated).
    case gzip
    /// A zlib stream: a two-byte header, DEFLATE data, an Adler-32.
    case zlib
    /// DEFLATE data with no header (as in a zip, or Core Data's `Z_MODELCACHE`).
    case rawDeflate

    /// The form `bytes` start as: gzip by its magic bytes and method
    /// (`1F 8B 08`), zlib by its header (method 8, window at most 32 KB,
    /// header check a multiple of 31, no preset dictionary); nil otherwise
    /// (bare DEFLATE has no header to tell it by).
    public static func detect(_ bytes: UnsafeRawBufferPointer) -> CompressedForm? {
        guard bytes.count >= 2 else { return nil }
        if bytes.count >= 10, bytes[0] == 0x1F, bytes[1] == 0x8B, bytes[2] == 0x08 { return .gzip }
        let method = bytes[0], flags = bytes[1]
        if method & 0x0F == 8, method >> 4 <= 7, (UInt16(method) << 8 | UInt16(flags)) % 31 == 0, flags & 0x20 == 0 { return .zlib }
        return nil
    }
}

/// Inflating compressed bytes whole, within a size limit, with zlib.
public enum Inflate {
    /// `bytes` inflated from `form`, at most `limit` bytes.
    ///
    /// - Throws: `DataLayerError` `.sizeLimit` when the output would pass
    ///   `limit` (a bomb is stopped there, having used at most `limit` bytes
    ///   of memory), `.truncated` when the bytes end first, `.corrupt` (with
    ///   zlib's reason) when they are not such data, `.trailingBytes` when
    ///   bytes that are not another gzip member follow the end. The offset
    ///   is the input byte zlib had reached. Costs one pass; output grows in 64 KB steps.
    public static func inflate(_ bytes: UnsafeRawBufferPointer, form: CompressedForm, limit: Int) throws(DataLayerError) -> [UInt8] {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { throw DataLayerError(.truncated, offset: 0, "no \(form.rawValue) data") }
        guard bytes.count <= Int(UInt32.max) else { throw DataLayerError(.sizeLimit, offset: 0, "more than 4 GB of \(form.rawValue) data") }
        var stream = z_stream()
        let windowBits: Int32 =
            switch form {
            case .gzip: 15 + 16
            case .zlib: 15
            case .rawDeflate: -15
            }
        guard ictkit_inflate_init_window(&stream, windowBits) == Z_OK else {
            throw DataLayerError(.corrupt, offset: 0, "zlib could not start inflating")
        }
        defer { inflateEnd(&stream) }
        stream.next_in = UnsafeMutablePointer(mutating: base.assumingMemoryBound(to: Bytef.self))
        // Checked above: the count fits zlib's 32-bit `uInt`.
        stream.avail_in = uInt(bytes.count)
        var output: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 << 10)
        while true {
            let (result, produced) = chunk.withUnsafeMutableBufferPointer { buffer -> (Int32, Int) in
                stream.next_out = buffer.baseAddress
                stream.avail_out = uInt(buffer.count)
                let result = CLibZ.inflate(&stream, Z_NO_FLUSH)
                return (result, buffer.count - Int(stream.avail_out))
            }
            let consumed = bytes.count - Int(stream.avail_in)
            guard output.count <= limit - produced else {
                throw DataLayerError(.sizeLimit, offset: consumed, "the \(form.rawValue) data inflates past \(limit) bytes")
            }
            output.append(contentsOf: chunk[..<produced])
            switch result {
            case Z_STREAM_END:
                guard stream.avail_in > 0 else { return output }
                // gzip writes files given together as members one after another.
                let rest = UnsafeRawBufferPointer(rebasing: bytes[consumed...])
                guard form == .gzip, CompressedForm.detect(rest) == .gzip else {
                    throw DataLayerError(.trailingBytes, offset: consumed, "\(rest.count) bytes follow the end of the \(form.rawValue) data")
                }
                inflateReset(&stream)
            case Z_OK, Z_BUF_ERROR:
                if produced == 0 && stream.avail_in == 0 {
                    throw DataLayerError(.truncated, offset: consumed, "the \(form.rawValue) data ends before its end")
                }
            default:
                let reason = stream.msg.map { String(cString: $0) } ?? "zlib error \(result)"
                throw DataLayerError(.corrupt, offset: consumed, "not \(form.rawValue) data: \(reason)")
            }
        }
    }
}
