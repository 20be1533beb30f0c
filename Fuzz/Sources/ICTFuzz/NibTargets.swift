import Foundation
import NIBArchive
import PropertyList

let fuzzNibLimits = NIBArchiveLimits(maximumInputSize: 4 << 20, maximumCount: 200_000, maximumDepth: 512)

/// Compiled nib (`NIBArchive`): what the reader reads has every index in
/// range (each object's fields, class name and string are asked for), its
/// graph's tree is shown or refused for its depth alone, every object's key
/// paths resolve, and its lossless JSON form is written and read back equal.
func fuzzNibArchive(_ bytes: [UInt8]) {
    let file: NIBArchiveFile
    do {
        file = try NIBArchiveReader(limits: fuzzNibLimits).read(bytes)
    } catch {
        require(error.byteOffset.map { $0 >= 0 && $0 <= bytes.count } ?? true, "error offset outside the input: \(error)")
        return
    }
    for index in file.objects.indices {
        _ = file.className(ofObject: index)
        _ = file.string(ofObject: index)
        for (key, value) in file.fields(ofObject: index) {
            if let target = value.objectIndex { require(file.objects.indices.contains(target), "reference \(target) out of range") }
            _ = key
        }
    }
    let graph = NibObjectGraph(file)
    do {
        _ = try graph.treeText(limits: fuzzNibLimits)
    } catch {
        require(error.code == .limitExceeded(.depth), "the tree refused a checked file for other than depth: \(error)")
    }
    for object in graph.objects.prefix(50).compactMap({ $0 }) {
        require((try? graph.value(atKeyPath: "objects.\(object.index)")) == .object(object.index), "objects.N did not resolve")
        for field in object.fields.prefix(8) where !field.key.isEmpty {
            require((try? graph.value(atKeyPath: "objects.\(object.index).\(field.key)")) != nil, "a field's key path did not resolve")
        }
    }
    let form = file.jsonForm
    do {
        let written = try JSONPropertyListWriter().encode(form)
        let again = try JSONPropertyListReader(limits: fuzzLimits).read(Data(written))
        require(sameValue(form, again), "the JSON form did not read back equal")
    } catch {
        require(false, "the JSON form did not write and read back: \(error)")
    }
}
