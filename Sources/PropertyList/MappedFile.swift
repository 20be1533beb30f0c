import SystemPackage
import SystemSupport

// @unchecked Sendable: every stored property is a `let` set once in init;
// the mapping (or the buffer of a file of no stated size) is read-only and
// owned by this object, released only in deinit, when no thread can hold
// it. `releasePages` (madvise MADV_DONTNEED, on a mapping only) may run
// while other threads read: for a private mapping
// never written, a dropped page reads back from the file, so readers see
// no torn memory (only the documented "later writes may or may not show").
/// A file's bytes, read-only and memory-mapped, so a large file can be read
/// piecewise without loading it whole.
///
/// The mapping is private: later writes to the file by other processes may or
/// may not show; readers that need a stable view should copy what they keep.
public final class MappedFile: @unchecked Sendable {
    /// The path the file was opened at, byte for byte.
    public var path: FilePath { RawFileName.filePath(pathText) }
    /// The path the file was opened at as text for messages (bytes that are
    /// not UTF-8 carried as `RawFileName` carries them).
    package let pathText: String
    /// The file's bytes; valid while this object lives.
    public let bytes: UnsafeRawBufferPointer

    /// Maps the regular file at `path`.
    ///
    /// - Throws: `PropertyListError` with code `.io` when the file cannot be
    ///   opened, is not a regular file, or cannot be mapped; the message names
    ///   the system's reason.
    package convenience init(path: String) throws(PropertyListError) {
        // Without waiting: a FIFO would hold the open until a writer came; here it is refused.
        let descriptor: Int32
        do throws(SystemCallError) {
            descriptor = try DescriptorCalls.open(path, in: CurrentDirectory.descriptor, options: [.nonBlocking])
        } catch {
            throw Self.systemError("cannot open", path, error)
        }
        defer { DescriptorCalls.close(descriptor) }
        try self.init(descriptor: descriptor, path: path)
    }

    /// Maps the regular file open as `descriptor`, which stays the caller's
    /// to close (the mapping outlives it). `path` is kept for messages only,
    /// so a caller can open a name that is not UTF-8 itself.
    ///
    /// A file whose status says 0 bytes (as `/proc` and `/sys` files do,
    /// which have content all the same) is read to its end instead, up to
    /// `limit` bytes.
    ///
    /// - Throws: `PropertyListError` with code `.io` when the descriptor is not
    ///   a regular file or cannot be mapped or read,
    ///   `.limitExceeded(.inputSize)` when a file of no stated size holds more than `limit` bytes.
    package init(descriptor: Int32, path: String, limit: Int = PropertyListLimits.default.maximumInputSize) throws(PropertyListError) {
        self.pathText = path
        let info: FileInfo
        do throws(SystemCallError) {
            info = try FileInfo.of(descriptor: descriptor, path: path)
        } catch {
            throw Self.systemError("cannot read the status of", path, error)
        }
        guard info.kind == .regular else {
            throw PropertyListError(.io, at: .none, "\(path) is not a regular file")
        }
        let size = Int(info.size)
        if size == 0 {
            bytes = try Self.readToEnd(descriptor, path: path, limit: limit)
            isMapped = false
            return
        }
        do throws(SystemCallError) {
            bytes = try MemoryMapping.map(descriptor, size: size, path: path)
        } catch {
            throw Self.systemError("cannot map", path, error)
        }
        isMapped = true
    }

    /// Whether `bytes` is a mapping (else an allocation, or empty).
    private let isMapped: Bool

    /// The bytes of a file whose size is not known from its status, read
    /// until `read` says there are no more, in a buffer of their own.
    private static func readToEnd(_ descriptor: Int32, path: String, limit: Int) throws(PropertyListError) -> UnsafeRawBufferPointer {
        var collected: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 1 << 16)
        while true {
            let count: Int
            do throws(SystemCallError) {
                count = try chunk.withUnsafeMutableBytes { buffer in
                    Result { () throws(SystemCallError) in try FileReading.read(descriptor, into: buffer, path: path) }
                }.get()
            } catch {
                throw systemError("cannot read", path, error)
            }
            if count == 0 { break }
            guard collected.count + count <= limit else {
                throw PropertyListError(.limitExceeded(.inputSize), at: .none, "the input is larger than the limit of \(limit) bytes")
            }
            collected.append(contentsOf: chunk[0..<count])
        }
        guard !collected.isEmpty else { return UnsafeRawBufferPointer(start: nil, count: 0) }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: collected.count, alignment: 16)
        collected.withUnsafeBytes { copy.copyMemory(from: $0) }
        return UnsafeRawBufferPointer(copy)
    }

    /// Lets the system drop the resident pages of `range` (rounded inward to
    /// whole pages). The mapping is private and read-only, so nothing is lost:
    /// a dropped page touched again is read back from the page cache.
    func releasePages(_ range: Range<Int>) {
        guard isMapped else { return }
        MemoryMapping.releasePages(range, of: bytes)
    }

    deinit {
        guard let base = bytes.baseAddress else { return }
        if isMapped {
            MemoryMapping.unmap(bytes)
        } else {
            base.deallocate()
        }
    }

    private static func systemError(_ action: String, _ path: String, _ error: SystemCallError) -> PropertyListError {
        PropertyListError(.io, at: .none, "\(action) \(path): \(error.reason)")
    }
}
