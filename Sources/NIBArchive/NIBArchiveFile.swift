/// A compiled nib in Apple's `NIBArchive` format, read whole: its header's
/// versions and its four tables (objects, keys, values, class names), each
/// entry as written and every index in it checked.
public struct NIBArchiveFile: Hashable, Sendable {
    /// One object: its class and the run of values that are its fields.
    public struct Object: Hashable, Sendable {
        /// The index of its class in `classNames`.
        public var classNameIndex: Int
        /// The index of its first value in `values`.
        public var firstValueIndex: Int
        /// How many values, from `firstValueIndex`, are its fields.
        public var valueCount: Int
        /// The byte offset of the object's entry in the file.
        public var byteOffset: Int

        /// An object entry.
        public init(classNameIndex: Int, firstValueIndex: Int, valueCount: Int, byteOffset: Int) {
            self.classNameIndex = classNameIndex
            self.firstValueIndex = firstValueIndex
            self.valueCount = valueCount
            self.byteOffset = byteOffset
        }

        /// The range of its values in `values`.
        public var valueRange: Range<Int> { firstValueIndex..<(firstValueIndex + valueCount) }
    }

    /// One value: its key and what it holds.
    public struct Value: Hashable, Sendable {
        /// The index of its key in `keys`.
        public var keyIndex: Int
        /// What it holds, with its type.
        public var value: NIBArchiveValue
        /// The byte offset of the value's entry (its key's varint) in the file.
        public var byteOffset: Int

        /// A value entry.
        public init(keyIndex: Int, value: NIBArchiveValue, byteOffset: Int) {
            self.keyIndex = keyIndex
            self.value = value
            self.byteOffset = byteOffset
        }
    }

    /// One class name and the integers written before it.
    public struct ClassName: Hashable, Sendable {
        /// The name, without its terminating zero byte.
        public var name: String
        /// The four-byte integers between the name's length and the name (their meaning is not documented).
        public var extras: [Int32]

        /// A class name entry.
        public init(name: String, extras: [Int32]) {
            self.name = name
            self.extras = extras
        }
    }

    /// The header's first version (1 in every nib seen).
    public var formatVersion: UInt32
    /// The header's second version (9 or 10 in nibs seen; the coder's version).
    public var coderVersion: UInt32
    /// The objects, in file order; object 0 is the root.
    public var objects: [Object]
    /// The keys, in file order.
    public var keys: [String]
    /// The values, in file order.
    public var values: [Value]
    /// The class names, in file order.
    public var classNames: [ClassName]

    /// Creates a file from its tables, as given.
    public init(formatVersion: UInt32, coderVersion: UInt32, objects: [Object], keys: [String], values: [Value], classNames: [ClassName]) {
        self.formatVersion = formatVersion
        self.coderVersion = coderVersion
        self.objects = objects
        self.keys = keys
        self.values = values
        self.classNames = classNames
    }

    /// The class name of object `index`, which must be in range.
    public func className(ofObject index: Int) -> String { classNames[objects[index].classNameIndex].name }

    /// The fields of object `index`, which must be in range: each value's key and value, in file order
    /// (a key may repeat, as `UINibEncoderEmptyKey` does for the elements of an array).
    public func fields(ofObject index: Int) -> [(key: String, value: NIBArchiveValue)] {
        objects[index].valueRange.map { (keys[values[$0].keyIndex], values[$0].value) }
    }

    /// The first value of object `index` under `key`, or nil.
    public func value(ofObject index: Int, forKey key: String) -> NIBArchiveValue? {
        for valueIndex in objects[index].valueRange where keys[values[valueIndex].keyIndex] == key {
            return values[valueIndex].value
        }
        return nil
    }

    /// The text an `NSString` or `NSMutableString` object holds (its `NS.bytes` as UTF-8), or nil for another object.
    public func string(ofObject index: Int) -> String? {
        guard objects.indices.contains(index), className(ofObject: index).hasSuffix("String"),
            case .data(let bytes)? = value(ofObject: index, forKey: "NS.bytes")
        else { return nil }
        return NIBArchiveScanner.utf8String(bytes)
    }
}
