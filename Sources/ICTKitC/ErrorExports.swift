import PropertyList

/// What `ictkit_error *` points to: a `PropertyListError` with its strings kept as C strings until freed.
final class ErrorBox {
    let code: UnsafeMutablePointer<CChar>
    let description: UnsafeMutablePointer<CChar>
    let message: UnsafeMutablePointer<CChar>
    let keyPath: UnsafeMutablePointer<CChar>
    let byteOffset: Int64
    let line: Int64
    let column: Int64
    /// A Core Data store's table, row and column, for an error in a store (CoreDataExports.swift); nil otherwise.
    var storePlace: StoreErrorPlace?

    init(_ error: PropertyListError) {
        code = Self.cString(error.code.description)
        description = Self.cString(error.description)
        message = Self.cString(error.message)
        keyPath = Self.cString(error.keyPath.components.isEmpty ? "" : error.keyPath.description)
        switch error.location {
        case .byteOffset(let offset): (byteOffset, line, column) = (Int64(offset), -1, -1)
        case .lineColumn(let line, let column): (byteOffset, self.line, self.column) = (-1, Int64(line), Int64(column))
        case .none: (byteOffset, line, column) = (-1, -1, -1)
        }
    }

    /// An error of another module (keyed archive, typed stream, NIB archive), already put in words.
    init(code: String, description: String, message: String, keyPath: String, byteOffset: Int64, line: Int64 = -1, column: Int64 = -1) {
        self.code = Self.cString(code)
        self.description = Self.cString(description)
        self.message = Self.cString(message)
        self.keyPath = Self.cString(keyPath)
        (self.byteOffset, self.line, self.column) = (byteOffset, line, column)
    }

    deinit {
        for text in [code, description, message, keyPath] { text.deallocate() }
    }

    /// A NUL-terminated copy of `text` (a NUL inside it ends the C string early).
    private static func cString(_ text: String) -> UnsafeMutablePointer<CChar> {
        let utf8 = Array(text.utf8)
        let result = UnsafeMutablePointer<CChar>.allocate(capacity: utf8.count + 1)
        for (index, byte) in utf8.enumerated() { result[index] = CChar(bitPattern: byte) }
        result[utf8.count] = 0
        return result
    }

    /// Hands `error` to a C caller through `out` (when it is not NULL), which then owns it.
    static func report(_ error: PropertyListError, to out: UnsafeMutablePointer<OpaquePointer?>?) {
        out?.pointee = OpaquePointer(Unmanaged.passRetained(ErrorBox(error)).toOpaque())
    }

    /// The box behind a handle a C caller passes back.
    static func from(_ handle: OpaquePointer) -> ErrorBox {
        Unmanaged<ErrorBox>.fromOpaque(UnsafeRawPointer(handle)).takeUnretainedValue()
    }
}

/// The code's stable name. The corresponding C function is `ictkit_error_code`.
@_cdecl("ictkit_error_code")
public func ictkitErrorCode(_ error: OpaquePointer) -> UnsafePointer<CChar> { UnsafePointer(ErrorBox.from(error).code) }

/// The sentence with its place. The corresponding C function is `ictkit_error_description`.
@_cdecl("ictkit_error_description")
public func ictkitErrorDescription(_ error: OpaquePointer) -> UnsafePointer<CChar> { UnsafePointer(ErrorBox.from(error).description) }

/// The sentence alone. The corresponding C function is `ictkit_error_message`.
@_cdecl("ictkit_error_message")
public func ictkitErrorMessage(_ error: OpaquePointer) -> UnsafePointer<CChar> { UnsafePointer(ErrorBox.from(error).message) }

/// The byte offset, or -1. The corresponding C function is `ictkit_error_byte_offset`.
@_cdecl("ictkit_error_byte_offset")
public func ictkitErrorByteOffset(_ error: OpaquePointer) -> Int64 { ErrorBox.from(error).byteOffset }

/// The 1-based line, or -1. The corresponding C function is `ictkit_error_line`.
@_cdecl("ictkit_error_line")
public func ictkitErrorLine(_ error: OpaquePointer) -> Int64 { ErrorBox.from(error).line }

/// The 1-based column, or -1. The corresponding C function is `ictkit_error_column`.
@_cdecl("ictkit_error_column")
public func ictkitErrorColumn(_ error: OpaquePointer) -> Int64 { ErrorBox.from(error).column }

/// The key path, or "". The corresponding C function is `ictkit_error_key_path`.
@_cdecl("ictkit_error_key_path")
public func ictkitErrorKeyPath(_ error: OpaquePointer) -> UnsafePointer<CChar> { UnsafePointer(ErrorBox.from(error).keyPath) }

/// Frees an error. The corresponding C function is `ictkit_error_free`.
@_cdecl("ictkit_error_free")
public func ictkitErrorFree(_ error: OpaquePointer?) {
    guard let error else { return }
    Unmanaged<ErrorBox>.fromOpaque(UnsafeRawPointer(error)).release()
}
