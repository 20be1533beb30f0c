import DataLayers
import EmbeddedLayers
import Foundation
import KeyedArchive
import NIBArchive
import PropertyList
import TypedStream

/// Protocol buffer read without a schema: fields within the bytes, in
/// order, numbers in range; what reads once reads the same again; its text
/// and property-list forms are made without a trap.
func fuzzProtocolBuffer(_ bytes: [UInt8]) {
    let reader = ProtocolBufferReader(maximumDepth: 64, maximumFields: 100_000)
    let read = bytes.withUnsafeBytes { buffer in Result { () throws(DataLayerError) in try reader.read(buffer) } }
    switch read {
    case .failure(let error):
        require(error.offset >= 0 && error.offset <= bytes.count, "an error at byte \(error.offset) of \(bytes.count)")
    case .success(let fields):
        var last = -1
        for field in fields {
            require(field.offset > last && field.offset < bytes.count, "field \(field.number) at byte \(field.offset) after \(last)")
            require(field.number >= 1 && field.number < 1 << 29, "field number \(field.number)")
            last = field.offset
        }
        let again = try? reader.read(Data(bytes))
        require(again == fields, "a second read differs")
        _ = ProtocolBufferText.text(of: fields)
        _ = ProtocolBufferPropertyList.value(of: fields)
    }
}

/// Compressed data inflated within a 1 MB limit in each form; the layers of
/// a data value holding the bytes found, as `inspect --expand` finds them
/// (a typed stream or NIB archive, bare or inflated, read as the `!` step
/// reads it), within the limits, every failure saying where.
func fuzzDataLayers(_ bytes: [UInt8]) {
    let limit = 1 << 20
    for form in CompressedForm.allCases {
        let inflated = bytes.withUnsafeBytes { buffer in
            Result { () throws(DataLayerError) in try Inflate.inflate(buffer, form: form, limit: limit) }
        }
        switch inflated {
        case .success(let output): require(output.count <= limit, "\(form) inflated to \(output.count) bytes past the limit")
        case .failure(let error): require(error.offset >= 0 && error.offset <= bytes.count, "\(form): error at byte \(error.offset)")
        }
    }
    let archives = EmbeddedArchives(
        limits: fuzzLimits, maximumNesting: 6, maximumInflatedSize: limit,
        protocolBuffers: ProtocolBufferReader(maximumDepth: 64, maximumFields: 100_000),
        typedStreams: TypedStreamReader(limits: fuzzTypedStreamLimits), nibArchives: NIBArchiveReader(limits: fuzzNibLimits))
    let root = PropertyListValue.dictionary(["d": .data(Data(bytes))])
    guard let found = try? archives.find(in: root), let first = found.first else { return }
    var layer = first
    while let inner = layer.nested.first, layer.inflated != nil {
        layer = inner
    }
    guard let value = layer.value, [.protocolBuffer, .typedStream, .nibArchive].contains(layer.form) else { return }
    // What `d`'s layers hold as a whole: the key path `d!` followed by the empty path (as embedded-archive steps).
    let step = first.keyPath.appending(segment: PropertyListKeyPath())
    do {
        let stepped = try archives.value(in: root, at: step)
        require(sameValue(stepped, value), "\(step) gave \(brief(stepped)), find(in:) read \(brief(value))")
    } catch {
        require(false, "\(step) threw \(error) where find(in:) read \(brief(value))")
    }
}
