/// A nib's objects as a keyed graph: each object's class name and keyed
/// values, the top-level objects, and the outlet and action connections —
/// the same view of a compiled `NIBArchive` nib and of Interface Builder's
/// keyed `keyedobjects.nib`.
///
/// References between objects are kept as indices (`Value.object`); they
/// may form cycles (a view's superview refers back to it), which
/// `treeText(limits:)` marks rather than follows.
public struct NibObjectGraph: Hashable, Sendable {
    /// A field's value.
    public indirect enum Value: Hashable, Sendable {
        /// A reference to the object with this index.
        case object(Int)
        /// An integer.
        case integer(Int64)
        /// A floating-point number.
        case real(Double)
        /// A boolean.
        case bool(Bool)
        /// Bytes.
        case data([UInt8])
        /// A string (a keyed archive's string object, shown in place).
        case string(String)
        /// No value.
        case `nil`
        /// Values in order (a keyed archive's array).
        case list([Value])
    }

    /// One keyed value of an object.
    public struct Field: Hashable, Sendable {
        /// The key; `UINibEncoderEmptyKey` for each element of a compiled nib's array, set or dictionary.
        public var key: String
        /// The value.
        public var value: Value
        /// Where the value is in the file (a compiled nib), or nil.
        public var byteOffset: Int?

        /// A field.
        public init(key: String, value: Value, byteOffset: Int? = nil) {
            self.key = key
            self.value = value
            self.byteOffset = byteOffset
        }
    }

    /// One object: its class and its fields, in the file's order.
    public struct Object: Hashable, Sendable {
        /// Its index in the file (`$objects` for a keyed archive).
        public var index: Int
        /// Its class name.
        public var className: String
        /// Its fields, in the file's order.
        public var fields: [Field]
        /// The text it holds, for a string object; nil otherwise.
        public var string: String?

        /// An object.
        public init(index: Int, className: String, fields: [Field], string: String? = nil) {
            self.index = index
            self.className = className
            self.fields = fields
            self.string = string
        }
    }

    /// What a connection connects.
    public enum ConnectionKind: String, Hashable, Sendable {
        /// An outlet: the source's property named by the label is set to the destination.
        case outlet
        /// An outlet collection: the destination is added to the source's collection named by the label.
        case outletCollection
        /// An action: the source sends the label (a selector) to the destination.
        case action
    }

    /// An outlet or action connection (`UIRuntimeOutletConnection`,
    /// `UIRuntimeEventConnection`, `NSNibOutletConnector`, `NSNibControlConnector`, …).
    public struct Connection: Hashable, Sendable {
        /// Outlet, outlet collection or action.
        public var kind: ConnectionKind
        /// The connection object's own index.
        public var objectIndex: Int
        /// The source object, or nil when the connection names none.
        public var source: Int?
        /// The destination object, or nil (an action to the first responder).
        public var destination: Int?
        /// The outlet's name or the action's selector, or nil when not a string.
        public var label: String?

        /// A connection.
        public init(kind: ConnectionKind, objectIndex: Int, source: Int?, destination: Int?, label: String?) {
            self.kind = kind
            self.objectIndex = objectIndex
            self.source = source
            self.destination = destination
            self.label = label
        }
    }

    /// The objects by index; nil where the file's entry is no object of its own
    /// (a keyed archive's `$null`, class descriptions, and strings and numbers, which are shown in place).
    /// An iOS keyed nib's `$top` is shown as the object at index 0, its `$null`.
    public var objects: [Object?]
    /// The root object's index.
    public var rootIndex: Int
    /// The top-level objects (the root's `UINibTopLevelObjectsKey`, or an AppKit keyed nib's `NSRoot` and its children).
    public var topLevelObjects: [Int]
    /// The connections, in object order.
    public var connections: [Connection]

    /// The object with `index`, or nil when there is none.
    public func object(_ index: Int) -> Object? { objects.indices.contains(index) ? objects[index] : nil }

    /// The objects listed by an array-like object's `UINibEncoderEmptyKey` fields, or by a keyed archive's list.
    func elements(of index: Int) -> [Int] {
        guard let object = object(index) else { return [] }
        var found: [Int] = []
        for field in object.fields {
            switch field.value {
            case .object(let element) where field.key == "UINibEncoderEmptyKey" || field.key == "NS.objects": found.append(element)
            case .list(let list) where field.key == "NS.objects":
                for case .object(let element) in list { found.append(element) }
            default: break
            }
        }
        return found
    }

    static let outletClasses: Set<String> = ["UIRuntimeOutletConnection", "NSNibOutletConnector", "NSOutletConnector"]
    static let outletCollectionClasses: Set<String> = ["UIRuntimeOutletCollectionConnection", "NSNibOutletCollectionConnector"]
    static let actionClasses: Set<String> = ["UIRuntimeEventConnection", "NSNibControlConnector", "NSControlConnector"]

    /// The connections among `objects`, found by their class names.
    static func connections(in objects: [Object?]) -> [Connection] {
        var found: [Connection] = []
        for case let object? in objects {
            let kind: ConnectionKind
            if outletClasses.contains(object.className) {
                kind = .outlet
            } else if outletCollectionClasses.contains(object.className) {
                kind = .outletCollection
            } else if actionClasses.contains(object.className) {
                kind = .action
            } else {
                continue
            }
            var connection = Connection(kind: kind, objectIndex: object.index, source: nil, destination: nil, label: nil)
            for field in object.fields {
                switch (field.key, field.value) {
                case ("UISource", .object(let index)), ("NSSource", .object(let index)): connection.source = index
                case ("UIDestination", .object(let index)), ("NSDestination", .object(let index)): connection.destination = index
                case ("UILabel", .object(let index)), ("NSLabel", .object(let index)):
                    connection.label = objects.indices.contains(index) ? objects[index]?.string : nil
                case ("UILabel", .string(let text)), ("NSLabel", .string(let text)): connection.label = text
                default: break
                }
            }
            found.append(connection)
        }
        return found
    }
}

extension NibObjectGraph {
    /// The graph of a compiled nib: object 0 is the root; its
    /// `UINibTopLevelObjectsKey` array names the top-level objects.
    ///
    /// Reads nothing; every index in `file` was checked when it was read.
    public init(_ file: NIBArchiveFile) {
        var objects: [Object?] = []
        objects.reserveCapacity(file.objects.count)
        for index in file.objects.indices {
            let fields = file.objects[index].valueRange.map { valueIndex in
                let value = file.values[valueIndex]
                return Field(key: file.keys[value.keyIndex], value: Self.value(value.value), byteOffset: value.byteOffset)
            }
            objects.append(
                Object(index: index, className: file.className(ofObject: index), fields: fields, string: file.string(ofObject: index)))
        }
        self.objects = objects
        rootIndex = 0
        connections = Self.connections(in: objects)
        topLevelObjects = []
        if !file.objects.isEmpty, case .object(let list)? = file.value(ofObject: 0, forKey: "UINibTopLevelObjectsKey") {
            topLevelObjects = elements(of: list)
        }
    }

    private static func value(_ value: NIBArchiveValue) -> Value {
        switch value {
        case .int8, .int16, .int32, .int64: .integer(value.integer ?? 0)
        case .bool(let flag): .bool(flag)
        case .float(let real): .real(Double(real))
        case .double(let real): .real(real)
        case .data(let bytes): .data(bytes)
        case .nil: .nil
        case .object(let index): .object(index)
        }
    }
}
