import DocumentFormats
import Foundation
import KeyedArchive
import SystemPackage

/// A text note's bytes, read as each text kind: an `.icfnote` reads exactly
/// when the bytes are UTF-8 (Foundation agrees), and then as that text; a
/// `.dox` reads the bytes less a last character cut short (at most 3 bytes),
/// and reads whenever the `.icfnote` does, with nothing dropped.
func fuzzTextNote(_ bytes: [UInt8]) {
    let icfnote = try? TextNoteFile(bytes: bytes, kind: .icfnote)
    let foundation = String(data: Data(bytes), encoding: .utf8)
    require((icfnote == nil) == (foundation == nil), "the .icfnote reader and Foundation disagree on \(bytes.count) bytes")
    if let icfnote {
        require(Array(icfnote.text.utf8) == bytes, "an .icfnote's text is not its bytes")
        require(icfnote.droppedByteCount == 0, "an .icfnote dropped bytes")
    }
    guard let dox = try? TextNoteFile(bytes: bytes, kind: .dox) else {
        require(icfnote == nil, "a .dox refuses what an .icfnote reads")
        return
    }
    let kept = Array(dox.text.utf8)
    require(dox.droppedByteCount <= 3, "a .dox dropped \(dox.droppedByteCount) bytes")
    require(kept.count + dox.droppedByteCount == bytes.count && kept == Array(bytes.prefix(kept.count)), "a .dox's text is not its bytes' start")
    require(icfnote == nil || dox.droppedByteCount == 0, "a .dox dropped bytes of valid UTF-8")
}

/// A `.ptk` package whose metadata entry is the input (beside a valid data
/// entry): what `metadata()` reads, archived again as the app archives it
/// and read back, is equal; the validator, on the same package, never crashes.
func fuzzPTKDocument(_ bytes: [UInt8]) {
    let package = "\(scratchFolder)/Document.ptk"
    let saved = "\(scratchFolder)/Saved.ptk"
    removeItem(package)
    removeItem(saved)
    mkdir(package, 0o755)
    writeFile("\(package)/\(PTKDocumentFormat.metadataEntryName)", bytes)
    writeFile("\(package)/\(PTKDocumentFormat.dataEntryName)", validPTKDataEntry)
    _ = DocumentValidator(schema: .ptkDocument, imageLimits: fuzzImageLimits).validate(packageAt: FilePath(package))
    guard let document = try? PTKDocumentFile(contentsOf: FilePath(package), imageLimits: fuzzImageLimits),
        let metadata = try? document.metadata()
    else { return }
    do {
        mkdir(saved, 0o755)
        writeFile("\(saved)/\(PTKDocumentFormat.metadataEntryName)", try KeyedArchiver.archive(metadata, forKey: PTKDocumentFormat.topKey))
        let again = try PTKDocumentFile(contentsOf: FilePath(saved), imageLimits: fuzzImageLimits).metadata()
        require(again == metadata, "metadata round trip: \(brief(metadata)) became \(brief(again))")
    } catch {
        require(false, "a .ptk metadata entry that reads could not be archived and read again: \(error)")
    }
}

private let validPTKDataEntry: [UInt8] = {
    do { return try KeyedArchiver.archive(PTKData(), forKey: PTKDocumentFormat.topKey) } catch {
        fatalError("cannot archive PTKData: \(error)")
    }
}()
