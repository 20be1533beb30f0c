import DocumentFormats
import Foundation
import KeyedArchive
import PropertyList
import SystemPackage

let fuzzImageLimits = ImageLimits(thumbnailPixelLimit: 2048 * 2048, inputByteLimit: 4 << 20)

/// The summary, on a document whose metadata entry is the input: when
/// `ICTDocumentFile.metadata()` reads the entry (and its thumbnail has a PNG
/// header), the summary reads it too and agrees on name and thumbnail size.
func fuzzDocumentSummary(_ bytes: [UInt8]) {
    let package = "\(scratchFolder)/Summary.ict"
    removeItem(package)
    mkdir(package, 0o755)
    writeFile("\(package)/\(ICTDocumentFormat.metadataEntryName)", bytes)
    let summary = try? ICTDocumentSummary(ofDocumentAt: FilePath(package))
    guard let document = try? ICTDocumentFile(contentsOf: FilePath(package), imageLimits: fuzzImageLimits),
        let metadata = try? document.metadata()
    else { return }
    if let thumbnail = metadata.thumbnail, (try? PNGImage.size(ofPNG: thumbnail)) == nil { return }
    guard let summary else {
        let error = Result { () throws(ICTDocumentError) in try ICTDocumentSummary(ofDocumentAt: FilePath(package)) }
        require(false, "metadata() reads the entry, the summary refuses it: \(error)")
        return
    }
    require(
        summary.displayName == (metadata.displayName ?? "Summary"),
        "summary name \(brief(summary.displayName)), metadata name \(brief(metadata.displayName as Any))")
    require(
        summary.thumbnailByteCount == metadata.thumbnail?.count,
        "summary thumbnail \(summary.thumbnailByteCount as Any) bytes, metadata \(metadata.thumbnail?.count as Any)")
}

/// A whole document whose data entry is the input (beside a valid metadata
/// entry): what `data()` reads, a save writes and a reopen reads back equal.
func fuzzDocument(_ bytes: [UInt8]) {
    let package = "\(scratchFolder)/Document.ict"
    let saved = "\(scratchFolder)/Saved.ict"
    removeItem(package)
    removeItem(saved)
    mkdir(package, 0o755)
    writeFile("\(package)/\(ICTDocumentFormat.metadataEntryName)", validMetadataEntry)
    writeFile("\(package)/\(ICTDocumentFormat.dataEntryName)", bytes)
    guard let document = try? ICTDocumentFile(contentsOf: FilePath(package), imageLimits: fuzzImageLimits),
        let data = try? document.data()
    else { return }
    do {
        // Edit and restore a field, so the save encodes the data entry again.
        _ = try document.setFirstName((data.firstName ?? "") + "~")
        _ = try document.setFirstName(data.firstName)
        try document.save(to: FilePath(saved))
        let again = try ICTDocumentFile(contentsOf: FilePath(saved), imageLimits: fuzzImageLimits).data()
        var expected = data
        expected.favoriteNumber = data.favoriteNumber.map { Double(Float($0)) }
        require(sameData(again, expected), "document round trip: \(brief(data)) became \(brief(again))")
    } catch {
        require(false, "a document whose data reads could not be saved and reopened: \(error)")
    }
}

private let validMetadataEntry: [UInt8] = {
    do { return try KeyedArchiver.archive(CTMetadata(displayName: "Fuzz"), forKey: ICTDocumentFormat.topKey) } catch {
        fatalError("cannot archive metadata: \(error)")
    }
}()

/// PNG decoding and thumbnails: what decodes has width × height RGBA
/// pixels and the size its header says; encoding it and decoding again
/// gives the same image; its thumbnail is 280 × 280.
func fuzzPNG(_ bytes: [UInt8]) {
    guard let image = try? PNGImage(pngBytes: bytes, limits: fuzzImageLimits) else {
        _ = try? PNGImage.size(ofPNG: bytes)
        return
    }
    require(
        image.pixels.count == image.width * image.height * 4,
        "\(image.width)×\(image.height) image with \(image.pixels.count) pixel bytes")
    if let size = try? PNGImage.size(ofPNG: bytes) {
        require(size.width == image.width && size.height == image.height, "size(ofPNG:) \(size), decoded \(image.width)×\(image.height)")
    }
    do {
        let again = try PNGImage(pngBytes: try image.pngBytes(), limits: fuzzImageLimits)
        require(again == image, "PNG round trip changed the \(image.width)×\(image.height) image")
    } catch {
        require(false, "a decoded image did not encode and decode again: \(error)")
    }
    let thumbnail = ICTDocumentFile.thumbnail(of: image)
    require(
        thumbnail.width == ICTDocumentFormat.thumbnailSide && thumbnail.height == ICTDocumentFormat.thumbnailSide
            && thumbnail.pixels.count == thumbnail.width * thumbnail.height * 4,
        "thumbnail of \(image.width)×\(image.height) is \(thumbnail.width)×\(thumbnail.height)")
}
