/// The distinct scalars a binary property list writer has numbered, found
/// by a hash of their bytes: open addressing with linear probing over one
/// array of words, each the high 32 bits of a hash (which also give the
/// slot's place) and an object number (plus one; 0 is an empty slot), at
/// most half full. The caller compares the candidates;
/// the table knows nothing of the values, so finding one allocates nothing.
///
/// The hash is seeded at random for each table, so no input can be made to
/// collide on purpose from outside.
struct FlatScalarTable {
    private var slots: [UInt64]
    private var mask: Int
    private var count = 0
    private let seed: UInt64

    /// A table for about `expectedCount` scalars (grown when more come).
    init(expectedCount: Int) {
        // Sized for the values expected, capped so a large input does not
        // reserve a table it may never fill (most values share few scalars,
        // or are containers): the table doubles as it fills.
        var capacity = 1024
        while capacity < expectedCount * 2 && capacity < 1 << 20 { capacity <<= 1 }
        slots = [UInt64](repeating: 0, count: capacity)
        mask = capacity - 1
        seed = UInt64.random(in: .min ... .max)
    }

    // MARK: Hashing

    private static let multiplier0: UInt64 = 0xA076_1D64_78BD_642F
    private static let multiplier1: UInt64 = 0xE703_7ED1_A0B4_28DB

    /// Both halves of the full product, folded: a wyhash-style mix.
    @inline(__always)
    private static func mix(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let product = a.multipliedFullWidth(by: b)
        return product.high ^ product.low
    }

    /// The hash of a string's or data's bytes, of the kind `kind`.
    @inline(__always)
    func hash(_ bytes: UnsafeRawBufferPointer, kind: UInt8) -> UInt64 {
        let count = bytes.count
        var state = seed ^ Self.mix(UInt64(count) ^ Self.multiplier0, UInt64(kind) ^ Self.multiplier1)
        guard let base = bytes.baseAddress else { return state }
        // Safe, every load: each lies within the `count` bytes.
        var index = 0
        while count &- index > 16 {
            let a = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            let b = base.loadUnaligned(fromByteOffset: index &+ 8, as: UInt64.self)
            state = Self.mix(a ^ Self.multiplier0, b ^ state)
            index &+= 16
        }
        let left = count &- index
        let a: UInt64
        let b: UInt64
        if left >= 8 {
            a = base.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            b = base.loadUnaligned(fromByteOffset: count &- 8, as: UInt64.self)
        } else if left >= 4 {
            a = UInt64(base.loadUnaligned(fromByteOffset: index, as: UInt32.self))
            b = UInt64(base.loadUnaligned(fromByteOffset: count &- 4, as: UInt32.self))
        } else if left > 0 {
            let first = UInt64(base.load(fromByteOffset: index, as: UInt8.self))
            let middle = UInt64(base.load(fromByteOffset: index &+ left &>> 1, as: UInt8.self))
            let last = UInt64(base.load(fromByteOffset: count &- 1, as: UInt8.self))
            a = first &<< 16 | middle &<< 8 | last
            b = 0
        } else {
            a = 0
            b = 0
        }
        return Self.mix(a ^ Self.multiplier1, b ^ state)
    }

    /// The hash of a number, boolean or date: its kind and 64 bits.
    @inline(__always)
    func hash(_ bits: UInt64, kind: UInt8) -> UInt64 {
        Self.mix(bits ^ seed, UInt64(kind) ^ Self.multiplier0)
    }

    /// Whether two runs of bytes are the same bytes.
    @inline(__always)
    static func equal(_ lhs: UnsafeRawBufferPointer, _ rhs: UnsafeRawBufferPointer) -> Bool {
        let count = lhs.count
        guard count == rhs.count else { return false }
        guard count > 0, let left = lhs.baseAddress, let right = rhs.baseAddress else { return true }
        // Safe, every load: each lies within the `count` bytes of both.
        var index = 0
        while count &- index >= 8 {
            guard left.loadUnaligned(fromByteOffset: index, as: UInt64.self) == right.loadUnaligned(fromByteOffset: index, as: UInt64.self)
            else { return false }
            index &+= 8
        }
        while index < count {
            guard left.load(fromByteOffset: index, as: UInt8.self) == right.load(fromByteOffset: index, as: UInt8.self) else { return false }
            index &+= 1
        }
        return true
    }

    // MARK: Finding and adding

    /// The number of the scalar with `hash` that `isSame` accepts, if any.
    @inline(__always)
    func find(hash: UInt64, _ isSame: (Int) -> Bool) -> Int? {
        let tag = hash &>> 32
        let mask = mask
        return slots.withUnsafeBufferPointer { slots in
            var index = Int(truncatingIfNeeded: tag) & mask
            while true {
                let slot = slots[index]  // Safe: index is masked to the table's size.
                if slot == 0 { return nil }
                if slot &>> 32 == tag, isSame(Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) &- 1) {
                    return Int(truncatingIfNeeded: slot & 0xFFFF_FFFF) &- 1
                }
                index = (index &+ 1) & mask
            }
        }
    }

    /// Adds the scalar numbered `number` (below `UInt32.max`) with `hash`,
    /// which `find` did not find.
    mutating func insert(hash: UInt64, number: Int) {
        if (count &+ 1) &* 2 > slots.count { grow() }
        place(hash & 0xFFFF_FFFF_0000_0000 | UInt64(number &+ 1))
        count &+= 1
    }

    /// Puts `slot` in the first empty slot from the place its hash (the
    /// high 32 bits, all a slot keeps of it) gives.
    @inline(__always)
    private mutating func place(_ slot: UInt64) {
        let mask = mask
        slots.withUnsafeMutableBufferPointer { slots in
            var index = Int(truncatingIfNeeded: slot &>> 32) & mask
            while slots[index] != 0 { index = (index &+ 1) & mask }  // Safe: masked; the table is never full.
            slots[index] = slot
        }
    }

    /// Doubles the table, placing every slot again.
    private mutating func grow() {
        let old = slots
        slots = [UInt64](repeating: 0, count: old.count &* 2)
        mask = slots.count &- 1
        for slot in old where slot != 0 { place(slot) }
    }
}
