/// A whole typed stream, read losslessly: its header, the classes and
/// objects in the order the stream introduces them, and its top-level
/// values. Objects refer to each other by index into ``objects``, so shared
/// objects and cycles are kept as the stream has them.
public struct TypedStreamDocument: Hashable, Sendable {
    /// The byte order the stream was written in.
    public enum ByteOrder: String, Hashable, Sendable {
        /// `streamtyped`: Intel and Apple silicon Macs.
        case littleEndian = "little"
        /// `typedstream`: PowerPC and NeXT machines.
        case bigEndian = "big"
    }

    /// The byte order, from the signature.
    public var byteOrder: ByteOrder
    /// The streamer version (4 for everything Mac OS X wrote).
    public var streamerVersion: Int
    /// The system version (1000 for Mac OS X).
    public var systemVersion: Int
    /// Every class description, in the order the stream introduces them.
    public var classes: [TypedStreamClass]
    /// Every object, in the order the stream introduces them.
    public var objects: [TypedStreamObject]
    /// The top-level groups of values.
    public var root: [TypedStreamGroup]

    /// The first top-level value, the archive's root object when the stream
    /// was written by `NSArchiver`; nil for an empty stream.
    public var rootValue: TypedStreamValue? { root.first?.values.first?.value }
}

/// A class as a typed stream describes it: its name, its version and its
/// superclass (an index into ``TypedStreamDocument/classes``).
public struct TypedStreamClass: Hashable, Sendable {
    /// The class name, `NSMutableString`.
    public var name: String
    /// The version the class's `-encodeWithCoder:` wrote.
    public var version: Int
    /// The superclass's index in ``TypedStreamDocument/classes``, nil for a root class.
    public var superclass: Int?
}

/// One object: its class and the groups of values its `-encodeWithCoder:`
/// wrote, in order.
public struct TypedStreamObject: Hashable, Sendable {
    /// The class's index in ``TypedStreamDocument/classes``.
    public var classIndex: Int
    /// The groups of values, in the order they were written.
    public var groups: [TypedStreamGroup]
    /// The byte offset of the object's first byte.
    public var byteOffset: Int
}

/// A group of values written with one call (`encodeValuesOfObjCTypes:`),
/// each with its own type encoding.
public struct TypedStreamGroup: Hashable, Sendable {
    /// The values and their type encodings.
    public var values: [TypedStreamField]
    /// The byte offset of the group's first byte.
    public var byteOffset: Int
}

/// One value with its Objective-C type encoding (`i`, `@`, `{_NSRect={_NSPoint=ff}{_NSSize=ff}}`).
public struct TypedStreamField: Hashable, Sendable {
    /// The value's type encoding, as the stream spells it.
    public var encoding: String
    /// The value.
    public var value: TypedStreamValue
}

/// A value in a typed stream, by its C type.
public enum TypedStreamValue: Hashable, Sendable {
    /// Any integer type (`c C s S i I l L q Q`), widened.
    case integer(Int64)
    /// A `float` (`f`).
    case float(Float)
    /// A `double` (`d`).
    case double(Double)
    /// A C99 `_Bool` (`B`).
    case bool(Bool)
    /// A C string (`*`), an unshared string (`+`), an atom (`%`) or a
    /// selector (`:`) as its bytes; nil when written as NULL.
    case string([UInt8]?)
    /// A class (`#`): its index in ``TypedStreamDocument/classes``, nil for Nil.
    case `class`(Int?)
    /// An object (`@`): its index in ``TypedStreamDocument/objects``, nil for nil.
    case object(Int?)
    /// An array of `char` or `unsigned char` (`[16c]`), as its bytes.
    case bytes([UInt8])
    /// Any other array (`[4f]`).
    case array([TypedStreamValue])
    /// A struct (`{_NSPoint=ff}`): its name, if the encoding has one, and its fields.
    case structure(name: String?, fields: [TypedStreamValue])
    /// The "no value" type `!`, which takes no bytes.
    case none
}

extension TypedStreamDocument {
    /// The class's name and those of its superclasses, most derived first.
    public func classChain(of object: TypedStreamObject) -> [TypedStreamClass] {
        var chain: [TypedStreamClass] = []
        var next: Int? = object.classIndex
        // Superclasses always precede nothing they are not: each class's superclass index was read
        // before it could be referred to, but a crafted chain is bounded by the class count anyway.
        while let index = next, chain.count < classes.count {
            chain.append(classes[index])
            next = classes[index].superclass
        }
        return chain
    }

    /// The values of `object`, all groups flattened in order: the fields of
    /// its `-encodeWithCoder:`.
    public func fields(of object: TypedStreamObject) -> [TypedStreamField] {
        // Most objects write one group: its array as it is, not a copy.
        if object.groups.count == 1 { return object.groups[0].values }
        return object.groups.flatMap(\.values)
    }
}
