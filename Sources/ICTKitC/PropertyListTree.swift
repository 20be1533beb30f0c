import OrderedCollections
import PropertyList

#if canImport(FoundationEssentials)
import FoundationEssentials
#else
import Foundation
#endif

/// A property list laid out flat for C callers: nodes in one array, containers' children in another, and every
/// string (NUL-terminated UTF-8) and data in one byte pool, so an accessor is an index and a C caller gets
/// pointers into the pool without a copy.
final class PropertyListTree {
    /// One value. What `first` and `second` hold depends on `kind` (see the accessors in PropertyListExports.swift).
    struct Node {
        var kind: Int32
        /// Integers: above `Int64.max`; reals: stored as a 32-bit float.
        var flag: Bool
        var first: UInt64
        var second: UInt64
    }

    static let string: Int32 = 1
    static let integer: Int32 = 2
    static let real: Int32 = 3
    static let bool: Int32 = 4
    static let date: Int32 = 5
    static let data: Int32 = 6
    static let array: Int32 = 7
    static let dictionary: Int32 = 8
    static let uid: Int32 = 9
    /// `ICTKIT_NO_NODE`.
    static let noNode = UInt32.max

    /// The nodes, children and byte pool. A struct, mutated in place by its own methods, so laying out a large
    /// value pays no dynamic exclusivity check per node (as methods of this class touching its stored arrays did).
    struct Layout {
        var nodes: [Node] = []
        /// Arrays' items, and dictionaries' keys and values interleaved (key, value, key, value, …).
        var children: [UInt32] = []
        var pool: UnsafeMutableRawPointer
        var poolCount = 0
        var poolCapacity: Int

        init(poolCapacity: Int) {
            self.poolCapacity = max(poolCapacity, 64)
            pool = UnsafeMutableRawPointer.allocate(byteCount: self.poolCapacity, alignment: 1)
        }

        /// Appends a node and returns its number.
        mutating func append(_ node: Node) -> UInt32 {
            nodes.append(node)
            return UInt32(nodes.count - 1)
        }

        /// Copies `bytes` into the pool, followed by a NUL when `terminated`; returns where they start.
        mutating func store(_ bytes: UnsafeRawBufferPointer, terminated: Bool) -> UInt64 {
            let needed = poolCount + bytes.count + (terminated ? 1 : 0)
            if needed > poolCapacity {
                let capacity = max(needed, poolCapacity * 2)
                let grown = UnsafeMutableRawPointer.allocate(byteCount: capacity, alignment: 1)
                grown.copyMemory(from: pool, byteCount: poolCount)
                pool.deallocate()
                pool = grown
                poolCapacity = capacity
            }
            let start = poolCount
            if let base = bytes.baseAddress { (pool + start).copyMemory(from: base, byteCount: bytes.count) }
            if terminated { (pool + start + bytes.count).storeBytes(of: 0, as: UInt8.self) }
            poolCount = needed
            return UInt64(start)
        }

        mutating func addString(_ utf8: UnsafeRawBufferPointer) -> UInt32 {
            append(Node(kind: PropertyListTree.string, flag: false, first: store(utf8, terminated: true), second: UInt64(utf8.count)))
        }

        mutating func addData(_ bytes: UnsafeRawBufferPointer) -> UInt32 {
            append(Node(kind: PropertyListTree.data, flag: false, first: store(bytes, terminated: false), second: UInt64(bytes.count)))
        }

        /// Adds a container over `members` (for a dictionary: key, value, key, value, …) holding `count` entries.
        mutating func addContainer(kind: Int32, members: UnsafeBufferPointer<UInt32>, count: Int) -> UInt32 {
            let start = UInt64(children.count)
            children.append(contentsOf: members)
            return append(Node(kind: kind, flag: false, first: start, second: UInt64(count)))
        }

        /// Lays out `value`: a container's slots in `children` are taken before its members are laid out, and
        /// filled as each is, so no member list is built on the side.
        mutating func add(_ value: PropertyListValue) -> UInt32 {
            switch value {
            case .string(var string): return string.withUTF8 { addString(UnsafeRawBufferPointer($0)) }
            case .integer(let integer):
                return append(Node(kind: PropertyListTree.integer, flag: integer.isAboveInt64Max, first: integer.bitPattern, second: 0))
            case .real(let real): return append(Node(kind: PropertyListTree.real, flag: false, first: real.bitPattern, second: 0))
            case .real32(let real): return append(Node(kind: PropertyListTree.real, flag: true, first: Double(real).bitPattern, second: 0))
            case .bool(let bool): return append(Node(kind: PropertyListTree.bool, flag: false, first: bool ? 1 : 0, second: 0))
            case .date(let date):
                return append(
                    Node(kind: PropertyListTree.date, flag: false, first: date.timeIntervalSinceReferenceDate.bitPattern, second: 0))
            case .data(let data): return data.withUnsafeBytes { addData($0) }
            case .uid(let uid): return append(Node(kind: PropertyListTree.uid, flag: false, first: uid, second: 0))
            case .array(let items):
                let start = children.count
                children.append(contentsOf: repeatElement(0, count: items.count))
                for index in items.indices { children[start + index] = add(items[index]) }
                return append(Node(kind: PropertyListTree.array, flag: false, first: UInt64(start), second: UInt64(items.count)))
            case .dictionary(let dictionary):
                let start = children.count
                children.append(contentsOf: repeatElement(0, count: dictionary.count * 2))
                for index in dictionary.keys.indices {
                    var key = dictionary.keys[index]
                    children[start + 2 * index] = key.withUTF8 { addString(UnsafeRawBufferPointer($0)) }
                    children[start + 2 * index + 1] = add(dictionary.values[index])
                }
                return append(Node(kind: PropertyListTree.dictionary, flag: false, first: UInt64(start), second: UInt64(dictionary.count)))
            }
        }
    }

    private(set) var layout: Layout
    /// The root of a tree that was read; `noNode` for one being built.
    private(set) var root = noNode

    init(poolCapacity: Int = 64) {
        layout = Layout(poolCapacity: poolCapacity)
    }

    deinit { layout.pool.deallocate() }

    /// Lays out `value` (read from a file, so within the reader's depth and object-count limits). The node array
    /// is reserved for one node per 12 input bytes, about what binary property lists hold, so a large file's
    /// array is not copied on every doubling; a larger tree still grows it.
    convenience init(_ value: PropertyListValue, inputSize: Int) {
        self.init(poolCapacity: inputSize)
        layout.nodes.reserveCapacity(min(inputSize / 12, PropertyListLimits.default.maximumObjectCount) + 1)
        root = layout.add(value)
    }

    /// Whether `node` is a node of this tree.
    func contains(_ node: UInt32) -> Bool { Int(node) < layout.nodes.count }

    /// The node numbered `node`; a number that is not one is a caller's error.
    subscript(_ node: UInt32) -> Node {
        precondition(contains(node), "ictkit: \(node) is not a node of this plist")
        return layout.nodes[Int(node)]
    }

    /// The bytes of a string or data node, in the pool.
    func bytes(of node: Node) -> UnsafeRawBufferPointer {
        UnsafeRawBufferPointer(start: layout.pool + Int(node.first), count: Int(node.second))
    }

    /// The child `index` of a container's children.
    func child(_ index: UInt64) -> UInt32 { layout.children[Int(index)] }

    // MARK: Adding, for ictkit_plist_add_*

    func append(_ node: Node) -> UInt32 { layout.append(node) }

    func addString(_ utf8: UnsafeRawBufferPointer) -> UInt32 { layout.addString(utf8) }

    func addData(_ bytes: UnsafeRawBufferPointer) -> UInt32 { layout.addData(bytes) }

    func addContainer(kind: Int32, members: UnsafeBufferPointer<UInt32>, count: Int) -> UInt32 {
        layout.addContainer(kind: kind, members: members, count: count)
    }

    // MARK: Back to a value

    /// The value under `node`, for a writer.
    ///
    /// - Throws: `PropertyListError` with code `.limitExceeded(.depth)` past the default depth limit, which a
    ///   built tree may exceed (a read one cannot).
    func value(at node: UInt32, depth: Int = 0) throws(PropertyListError) -> PropertyListValue {
        guard depth < PropertyListLimits.default.maximumDepth else {
            throw PropertyListError(
                .limitExceeded(.depth), at: .none,
                "the value nests deeper than \(PropertyListLimits.default.maximumDepth) levels")
        }
        let entry = self[node]
        switch entry.kind {
        case Self.string: return .string(String(decoding: bytes(of: entry), as: UTF8.self))
        case Self.integer:
            return .integer(entry.flag ? PropertyListInteger(entry.first) : PropertyListInteger(Int64(bitPattern: entry.first)))
        case Self.real:
            let real = Double(bitPattern: entry.first)
            return entry.flag ? .real32(Float(real)) : .real(real)
        case Self.bool: return .bool(entry.first != 0)
        case Self.date: return .date(Date(timeIntervalSinceReferenceDate: Double(bitPattern: entry.first)))
        case Self.data: return .data(Data(bytes(of: entry)))
        case Self.uid: return .uid(entry.first)
        case Self.array:
            var items: [PropertyListValue] = []
            items.reserveCapacity(Int(entry.second))
            for index in 0..<entry.second { items.append(try value(at: child(entry.first + index), depth: depth + 1)) }
            return .array(items)
        default:
            var dictionary = OrderedDictionary<String, PropertyListValue>(minimumCapacity: Int(entry.second))
            for index in 0..<entry.second {
                let key = String(decoding: bytes(of: self[child(entry.first + 2 * index)]), as: UTF8.self)
                dictionary[key] = try value(at: child(entry.first + 2 * index + 1), depth: depth + 1)
            }
            return .dictionary(dictionary)
        }
    }

    // MARK: Key paths

    /// The node at `keyPath` below `node`, or `noNode`: the steps `PropertyListValue.value(at:)` takes (a key
    /// selects in a dictionary; an index, or a key that is a decimal integer, in an array), over this layout.
    func node(at keyPath: PropertyListKeyPath, from node: UInt32) -> UInt32 {
        var current = node
        for component in keyPath.components {
            let entry = self[current]
            switch (entry.kind, component) {
            case (Self.dictionary, .key(let key)):
                current = dictionaryValue(entry, key: key)
            case (Self.array, _):
                let index: Int? =
                    switch component {
                    case .index(let index): index
                    case .key(let key): Int(key)
                    }
                guard let index, index >= 0, index < Int(entry.second) else { return Self.noNode }
                current = child(entry.first + UInt64(index))
            default: return Self.noNode
            }
            if current == Self.noNode { return Self.noNode }
        }
        return current
    }

    private func dictionaryValue(_ entry: Node, key: String) -> UInt32 {
        var key = key
        return key.withUTF8 { wanted in
            for index in 0..<entry.second where bytes(of: self[child(entry.first + 2 * index)]).elementsEqual(wanted) {
                return child(entry.first + 2 * index + 1)
            }
            return Self.noNode
        }
    }
}
