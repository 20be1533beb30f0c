import PropertyList

// The property-list half of include/ictkit.h: each C function is one @_cdecl function here, with the ownership
// the header states. Handles are retained Swift objects (`PropertyListTree`, `ErrorBox`) passed as opaque pointers.

/// The format an `ICTKIT_FORMAT_` number names; nil for `ICTKIT_FORMAT_AUTO`.
private func format(_ number: Int32) throws(PropertyListError) -> PropertyListFormat? {
    switch number {
    case 0: nil
    case 1: .binary
    case 2: .xml
    case 3: .openStep
    case 4: .json
    default: throw PropertyListError(.unsupportedValue, at: .none, "\(number) is not an ICTKIT_FORMAT_ number")
    }
}

/// The `ICTKIT_FORMAT_` number of a format.
private func number(_ format: PropertyListFormat) -> Int32 {
    switch format {
    case .binary: 1
    case .xml: 2
    case .openStep: 3
    case .json: 4
    }
}

private func tree(_ handle: OpaquePointer) -> PropertyListTree {
    Unmanaged<PropertyListTree>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
}

private func handle(_ tree: PropertyListTree) -> OpaquePointer {
    OpaquePointer(Unmanaged.passRetained(tree).toOpaque())
}

/// Reads a property list. The corresponding C function is `ictkit_plist_read`.
@_cdecl("ictkit_plist_read")
public func ictkitPlistRead(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ format: Int32, _ readFormat: UnsafeMutablePointer<Int32>?,
    _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> OpaquePointer? {
    do throws(PropertyListError) {
        let input = UnsafeRawBufferPointer(start: length == 0 ? nil : bytes, count: length)
        let (value, found) = try PropertyListReader().read(input, format: ICTKitC.format(format))
        readFormat?.pointee = number(found)
        return handle(PropertyListTree(value, inputSize: length))
    } catch {
        ErrorBox.report(error, to: errorOut)
        return nil
    }
}

/// A new plist to build. The corresponding C function is `ictkit_plist_create`.
@_cdecl("ictkit_plist_create")
public func ictkitPlistCreate() -> OpaquePointer { handle(PropertyListTree()) }

/// Frees a plist. The corresponding C function is `ictkit_plist_free`.
@_cdecl("ictkit_plist_free")
public func ictkitPlistFree(_ plist: OpaquePointer?) {
    guard let plist else { return }
    Unmanaged<PropertyListTree>.fromOpaque(UnsafeRawPointer(plist)).release()
}

/// The root node. The corresponding C function is `ictkit_plist_root`.
@_cdecl("ictkit_plist_root")
public func ictkitPlistRoot(_ plist: OpaquePointer) -> UInt32 { tree(plist).root }

/// A node's kind. The corresponding C function is `ictkit_node_type`.
@_cdecl("ictkit_node_type")
public func ictkitNodeType(_ plist: OpaquePointer, _ node: UInt32) -> Int32 { tree(plist)[node].kind }

/// A string's UTF-8 bytes. The corresponding C function is `ictkit_node_string`.
@_cdecl("ictkit_node_string")
public func ictkitNodeString(_ plist: OpaquePointer, _ node: UInt32, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<CChar>? {
    let tree = tree(plist)
    let entry = tree[node]
    guard entry.kind == PropertyListTree.string else { return nil }
    let bytes = tree.bytes(of: entry)
    length?.pointee = bytes.count
    return bytes.baseAddress?.assumingMemoryBound(to: CChar.self)
}

/// A data node's bytes. The corresponding C function is `ictkit_node_data`.
@_cdecl("ictkit_node_data")
public func ictkitNodeData(_ plist: OpaquePointer, _ node: UInt32, _ length: UnsafeMutablePointer<Int>?) -> UnsafePointer<UInt8>? {
    let tree = tree(plist)
    let entry = tree[node]
    guard entry.kind == PropertyListTree.data else { return nil }
    let bytes = tree.bytes(of: entry)
    length?.pointee = bytes.count
    return bytes.baseAddress?.assumingMemoryBound(to: UInt8.self)
}

/// An integer as int64_t. The corresponding C function is `ictkit_node_int64`.
@_cdecl("ictkit_node_int64")
public func ictkitNodeInt64(_ plist: OpaquePointer, _ node: UInt32) -> Int64 { Int64(bitPattern: tree(plist)[node].first) }

/// An integer as uint64_t. The corresponding C function is `ictkit_node_uint64`.
@_cdecl("ictkit_node_uint64")
public func ictkitNodeUInt64(_ plist: OpaquePointer, _ node: UInt32) -> UInt64 { tree(plist)[node].first }

/// Whether an integer lies above INT64_MAX. The corresponding C function is `ictkit_node_integer_is_unsigned`.
@_cdecl("ictkit_node_integer_is_unsigned")
public func ictkitNodeIntegerIsUnsigned(_ plist: OpaquePointer, _ node: UInt32) -> Int32 {
    let entry = tree(plist)[node]
    return entry.kind == PropertyListTree.integer && entry.flag ? 1 : 0
}

/// A real. The corresponding C function is `ictkit_node_real`.
@_cdecl("ictkit_node_real")
public func ictkitNodeReal(_ plist: OpaquePointer, _ node: UInt32) -> Double { Double(bitPattern: tree(plist)[node].first) }

/// Whether a real was a 32-bit float. The corresponding C function is `ictkit_node_real_is_float32`.
@_cdecl("ictkit_node_real_is_float32")
public func ictkitNodeRealIsFloat32(_ plist: OpaquePointer, _ node: UInt32) -> Int32 {
    let entry = tree(plist)[node]
    return entry.kind == PropertyListTree.real && entry.flag ? 1 : 0
}

/// A boolean. The corresponding C function is `ictkit_node_bool`.
@_cdecl("ictkit_node_bool")
public func ictkitNodeBool(_ plist: OpaquePointer, _ node: UInt32) -> Int32 { tree(plist)[node].first != 0 ? 1 : 0 }

/// A date in seconds since 2001. The corresponding C function is `ictkit_node_date`.
@_cdecl("ictkit_node_date")
public func ictkitNodeDate(_ plist: OpaquePointer, _ node: UInt32) -> Double { Double(bitPattern: tree(plist)[node].first) }

/// A UID. The corresponding C function is `ictkit_node_uid`.
@_cdecl("ictkit_node_uid")
public func ictkitNodeUID(_ plist: OpaquePointer, _ node: UInt32) -> UInt64 { tree(plist)[node].first }

/// A container's item or entry count. The corresponding C function is `ictkit_node_count`.
@_cdecl("ictkit_node_count")
public func ictkitNodeCount(_ plist: OpaquePointer, _ node: UInt32) -> Int {
    let entry = tree(plist)[node]
    return entry.kind == PropertyListTree.array || entry.kind == PropertyListTree.dictionary ? Int(entry.second) : 0
}

/// The child at `offset` within the `index`th member of a container of `kind` with `stride` children per member.
private func member(_ plist: OpaquePointer, _ node: UInt32, _ index: Int, kind: Int32, stride: UInt64, offset: UInt64) -> UInt32 {
    let tree = tree(plist)
    let entry = tree[node]
    guard entry.kind == kind, index >= 0, UInt64(index) < entry.second else { return PropertyListTree.noNode }
    return tree.child(entry.first + UInt64(index) * stride + offset)
}

/// An array's item. The corresponding C function is `ictkit_node_item`.
@_cdecl("ictkit_node_item")
public func ictkitNodeItem(_ plist: OpaquePointer, _ node: UInt32, _ index: Int) -> UInt32 {
    member(plist, node, index, kind: PropertyListTree.array, stride: 1, offset: 0)
}

/// A dictionary's key. The corresponding C function is `ictkit_node_key`.
@_cdecl("ictkit_node_key")
public func ictkitNodeKey(_ plist: OpaquePointer, _ node: UInt32, _ index: Int) -> UInt32 {
    member(plist, node, index, kind: PropertyListTree.dictionary, stride: 2, offset: 0)
}

/// A dictionary's value. The corresponding C function is `ictkit_node_value`.
@_cdecl("ictkit_node_value")
public func ictkitNodeValue(_ plist: OpaquePointer, _ node: UInt32, _ index: Int) -> UInt32 {
    member(plist, node, index, kind: PropertyListTree.dictionary, stride: 2, offset: 1)
}

/// The node at a key path. The corresponding C function is `ictkit_plist_get`.
@_cdecl("ictkit_plist_get")
public func ictkitPlistGet(_ plist: OpaquePointer, _ node: UInt32, _ keyPath: UnsafePointer<CChar>) -> UInt32 {
    tree(plist).node(at: PropertyListKeyPath(parsing: String(cString: keyPath)), from: node)
}

// MARK: Building

/// Adds a string. The corresponding C function is `ictkit_plist_add_string`.
@_cdecl("ictkit_plist_add_string")
public func ictkitPlistAddString(_ plist: OpaquePointer, _ utf8: UnsafePointer<CChar>?, _ length: Int) -> UInt32 {
    let bytes = UnsafeRawBufferPointer(start: length == 0 ? nil : utf8, count: length)
    guard String(validating: bytes, as: UTF8.self) != nil else { return PropertyListTree.noNode }
    return tree(plist).addString(bytes)
}

private func add(_ plist: OpaquePointer, _ kind: Int32, _ first: UInt64, flag: Bool = false) -> UInt32 {
    tree(plist).append(PropertyListTree.Node(kind: kind, flag: flag, first: first, second: 0))
}

/// Adds an integer. The corresponding C function is `ictkit_plist_add_int64`.
@_cdecl("ictkit_plist_add_int64")
public func ictkitPlistAddInt64(_ plist: OpaquePointer, _ value: Int64) -> UInt32 {
    add(plist, PropertyListTree.integer, UInt64(bitPattern: value))
}

/// Adds an unsigned integer. The corresponding C function is `ictkit_plist_add_uint64`.
@_cdecl("ictkit_plist_add_uint64")
public func ictkitPlistAddUInt64(_ plist: OpaquePointer, _ value: UInt64) -> UInt32 {
    add(plist, PropertyListTree.integer, value, flag: value > UInt64(Int64.max))
}

/// Adds a real. The corresponding C function is `ictkit_plist_add_real`.
@_cdecl("ictkit_plist_add_real")
public func ictkitPlistAddReal(_ plist: OpaquePointer, _ value: Double) -> UInt32 { add(plist, PropertyListTree.real, value.bitPattern) }

/// Adds a boolean. The corresponding C function is `ictkit_plist_add_bool`.
@_cdecl("ictkit_plist_add_bool")
public func ictkitPlistAddBool(_ plist: OpaquePointer, _ value: Int32) -> UInt32 { add(plist, PropertyListTree.bool, value != 0 ? 1 : 0) }

/// Adds a date. The corresponding C function is `ictkit_plist_add_date`.
@_cdecl("ictkit_plist_add_date")
public func ictkitPlistAddDate(_ plist: OpaquePointer, _ seconds: Double) -> UInt32 { add(plist, PropertyListTree.date, seconds.bitPattern) }

/// Adds data. The corresponding C function is `ictkit_plist_add_data`.
@_cdecl("ictkit_plist_add_data")
public func ictkitPlistAddData(_ plist: OpaquePointer, _ bytes: UnsafeRawPointer?, _ length: Int) -> UInt32 {
    tree(plist).addData(UnsafeRawBufferPointer(start: length == 0 ? nil : bytes, count: length))
}

/// Adds a UID. The corresponding C function is `ictkit_plist_add_uid`.
@_cdecl("ictkit_plist_add_uid")
public func ictkitPlistAddUID(_ plist: OpaquePointer, _ value: UInt64) -> UInt32 { add(plist, PropertyListTree.uid, value) }

/// Adds an array. The corresponding C function is `ictkit_plist_add_array`.
@_cdecl("ictkit_plist_add_array")
public func ictkitPlistAddArray(_ plist: OpaquePointer, _ items: UnsafePointer<UInt32>?, _ count: Int) -> UInt32 {
    let tree = tree(plist)
    let members = UnsafeBufferPointer(start: count == 0 ? nil : items, count: count)
    guard members.allSatisfy(tree.contains) else { return PropertyListTree.noNode }
    return tree.addContainer(kind: PropertyListTree.array, members: members, count: count)
}

/// Adds a dictionary. The corresponding C function is `ictkit_plist_add_dict`.
@_cdecl("ictkit_plist_add_dict")
public func ictkitPlistAddDict(_ plist: OpaquePointer, _ keys: UnsafePointer<UInt32>?, _ values: UnsafePointer<UInt32>?, _ count: Int)
    -> UInt32
{
    let tree = tree(plist)
    let keyNodes = UnsafeBufferPointer(start: count == 0 ? nil : keys, count: count)
    let valueNodes = UnsafeBufferPointer(start: count == 0 ? nil : values, count: count)
    guard keyNodes.allSatisfy({ tree.contains($0) && tree[$0].kind == PropertyListTree.string }),
        valueNodes.allSatisfy(tree.contains)
    else { return PropertyListTree.noNode }
    var members: [UInt32] = []
    members.reserveCapacity(count * 2)
    for index in 0..<count {
        members.append(keyNodes[index])
        members.append(valueNodes[index])
    }
    return members.withUnsafeBufferPointer { tree.addContainer(kind: PropertyListTree.dictionary, members: $0, count: count) }
}

// MARK: Writing

/// Writes the tree under a node. The corresponding C function is `ictkit_plist_write`.
@_cdecl("ictkit_plist_write")
public func ictkitPlistWrite(
    _ plist: OpaquePointer, _ root: UInt32, _ format: Int32, _ bytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
    _ length: UnsafeMutablePointer<Int>, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    do throws(PropertyListError) {
        guard let chosen = try ICTKitC.format(format) else {
            throw PropertyListError(.unsupportedValue, at: .none, "ICTKIT_FORMAT_AUTO names no format to write")
        }
        let encoded = try PropertyListWriter().encode(try tree(plist).value(at: root), format: chosen)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(encoded.count, 1))
        copy.initialize(from: encoded, count: encoded.count)
        bytes.pointee = copy
        length.pointee = encoded.count
        return 0
    } catch {
        ErrorBox.report(error, to: errorOut)
        return -1
    }
}

/// Frees written bytes. The corresponding C function is `ictkit_bytes_free`.
@_cdecl("ictkit_bytes_free")
public func ictkitBytesFree(_ bytes: UnsafeMutablePointer<UInt8>?) { bytes?.deallocate() }

// MARK: The flat form

/// Reads a property list into the flat form. The corresponding C function is `ictkit_plist_read_flat`.
@_cdecl("ictkit_plist_read_flat")
public func ictkitPlistReadFlat(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ format: Int32, _ readFormat: UnsafeMutablePointer<Int32>?,
    _ flat: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>, _ flatLength: UnsafeMutablePointer<Int>,
    _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    do throws(PropertyListError) {
        let input = UnsafeRawBufferPointer(start: length == 0 ? nil : bytes, count: length)
        // A binary property list is written into the flat form as it is read, with no tree in between.
        if let written = try PropertyListReader().readFlat(input, format: ICTKitC.format(format)) {
            readFormat?.pointee = number(.binary)
            flat.pointee = written.baseAddress!.assumingMemoryBound(to: UInt8.self)
            flatLength.pointee = written.count
            return 0
        }
        // The value is released when this returns, before the caller builds its objects from the flat form.
        let (value, found) = try PropertyListReader().read(input, format: ICTKitC.format(format))
        let encoded = try FlatPropertyList.encode(value)
        readFormat?.pointee = number(found)
        flat.pointee = encoded.baseAddress!.assumingMemoryBound(to: UInt8.self)
        flatLength.pointee = encoded.count
        return 0
    } catch {
        ErrorBox.report(error, to: errorOut)
        return -1
    }
}

/// Reads a binary property list into the flat form in chunks, each handed to `handler` as it is written. The
/// corresponding C function is `ictkit_plist_read_flat_chunks`.
@_cdecl("ictkit_plist_read_flat_chunks")
public func ictkitPlistReadFlatChunks(
    _ bytes: UnsafeRawPointer?, _ length: Int, _ format: Int32, _ chunkCount: Int,
    _ handler: @convention(c) (UnsafeMutableRawPointer?, UnsafeMutablePointer<UInt8>?, Int) -> Int32,
    _ context: UnsafeMutableRawPointer?
) -> Int32 {
    // An unknown format number is left to ictkit_plist_read_flat to refuse.
    let chosen: PropertyListFormat?
    do { chosen = try ICTKitC.format(format) } catch { return 1 }
    guard length > 0, let bytes, chosen == nil || chosen == .binary else { return 1 }
    let input = UnsafeRawBufferPointer(start: bytes, count: length)
    let whole = PropertyListReader().readFlat(input, format: chosen, chunkCount: max(chunkCount, 1)) { chunk in
        handler(context, chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), chunk.count) == 0
    }
    return whole ? 0 : 1
}

/// Writes a property list given in the flat form. The corresponding C function is `ictkit_plist_write_flat`.
@_cdecl("ictkit_plist_write_flat")
public func ictkitPlistWriteFlat(
    _ flat: UnsafeRawPointer?, _ flatLength: Int, _ format: Int32, _ bytes: UnsafeMutablePointer<UnsafeMutablePointer<UInt8>?>,
    _ length: UnsafeMutablePointer<Int>, _ errorOut: UnsafeMutablePointer<OpaquePointer?>?
) -> Int32 {
    do throws(PropertyListError) {
        guard let chosen = try ICTKitC.format(format) else {
            throw PropertyListError(.unsupportedValue, at: .none, "ICTKIT_FORMAT_AUTO names no format to write")
        }
        let flatBytes = UnsafeRawBufferPointer(start: flatLength == 0 ? nil : flat, count: flatLength)
        if chosen == .binary {
            // Written from the flat bytes themselves, with no value built (row Y3 of issue 42).
            let encoded = try BinaryPropertyListWriter().encode(flat: flatBytes)
            bytes.pointee = encoded.baseAddress!
            length.pointee = encoded.count
            return 0
        }
        let value = try FlatPropertyList.decode(flatBytes)
        let encoded = try PropertyListWriter().encode(value, format: chosen)
        let copy = UnsafeMutablePointer<UInt8>.allocate(capacity: max(encoded.count, 1))
        copy.initialize(from: encoded, count: encoded.count)
        bytes.pointee = copy
        length.pointee = encoded.count
        return 0
    } catch {
        ErrorBox.report(error, to: errorOut)
        return -1
    }
}
