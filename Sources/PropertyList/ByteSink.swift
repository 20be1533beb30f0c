/// Where the writers put the bytes they produce: an array, or the XML
/// writer's own buffer. The helpers that format dates, reals and base64 are
/// generic over it, so each writer's appends compile to its own fast path.
protocol ByteSink {
    mutating func append(_ byte: UInt8)
    mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8
    /// Appends `count` bytes that `body` writes from the pointer it is given
    /// (every one of them), for formatters that know their length first.
    mutating func append(count: Int, writtenBy body: (UnsafeMutablePointer<UInt8>) -> Void)
}

extension Array: ByteSink where Element == UInt8 {
    mutating func append(count: Int, writtenBy body: (UnsafeMutablePointer<UInt8>) -> Void) {
        let start = self.count
        append(contentsOf: repeatElement(0, count: count))
        withUnsafeMutableBufferPointer { body($0.baseAddress! + start) }
    }
}

/// A growable byte buffer for the XML writer: appends are a capacity check
/// and a copy, with none of an array's uniqueness checks. It is owned by
/// one writer call, which frees it with `deallocate()`.
struct XMLOutputBytes: ByteSink {
    private var base: UnsafeMutablePointer<UInt8>
    private(set) var count = 0
    private var capacity: Int

    init(capacity: Int) {
        self.capacity = max(capacity, 256)
        base = .allocate(capacity: self.capacity)
    }

    /// Frees the storage; the buffer must not be used afterwards.
    func deallocate() { base.deallocate() }

    /// The bytes written so far.
    var bytes: UnsafeRawBufferPointer { UnsafeRawBufferPointer(start: base, count: count) }

    /// Forgets the bytes written, keeping the storage.
    mutating func removeAll() { count = 0 }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        guard capacity - count < extra else { return }
        var newCapacity = capacity * 2
        while newCapacity - count < extra { newCapacity *= 2 }
        let grown = UnsafeMutablePointer<UInt8>.allocate(capacity: newCapacity)
        grown.update(from: base, count: count)
        base.deallocate()
        base = grown
        capacity = newCapacity
    }

    @inline(__always)
    mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count &+= 1  // Safe: reserve made room.
    }

    @inline(__always)
    mutating func append(_ raw: UnsafeRawBufferPointer) {
        guard let source = raw.baseAddress, raw.count > 0 else { return }
        reserve(raw.count)
        let target = UnsafeMutableRawPointer(base + count)
        let length = raw.count
        if length >= 8, length <= 16 {
            // A tag or a short text, the commonest piece: two 8-byte moves
            // (overlapping when shorter than 16) instead of a call to memcpy.
            // Safe: both lie within the source's and the reserved bytes.
            let head = source.loadUnaligned(as: UInt64.self)
            let tail = source.loadUnaligned(fromByteOffset: length &- 8, as: UInt64.self)
            target.storeBytes(of: head, as: UInt64.self)
            target.storeBytes(of: tail, toByteOffset: length &- 8, as: UInt64.self)
        } else {
            target.copyMemory(from: source, byteCount: length)
        }
        count &+= length  // Safe: reserve made room.
    }

    @inline(__always)
    mutating func append(count extra: Int, writtenBy body: (UnsafeMutablePointer<UInt8>) -> Void) {
        reserve(extra)
        body(base + count)
        count &+= extra  // Safe: reserve made room, and body wrote every byte.
    }

    @inline(__always)
    mutating func append(_ text: StaticString) {
        append(UnsafeRawBufferPointer(start: text.utf8Start, count: text.utf8CodeUnitCount))
    }

    mutating func append<Bytes: Sequence>(contentsOf bytes: Bytes) where Bytes.Element == UInt8 {
        let copied: Void? = bytes.withContiguousStorageIfAvailable { append(UnsafeRawBufferPointer($0)) }
        if copied == nil {
            for byte in bytes { append(byte) }
        }
    }
}
