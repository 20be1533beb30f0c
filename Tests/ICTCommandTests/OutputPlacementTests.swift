import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `OutputPlacement`: a JSON export's image files are never made beside a
/// device or pipe, never replace an existing file without `--force` (nor a
/// file that is not a regular one even with it), and no command writes its
/// output inside the package it reads — each checked with the files on disk
/// compared byte for byte before and after.
@Suite struct OutputPlacementTests {
    private let folder: String
    private let document: String
    private static let pngSignature: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]

    init() throws {
        folder = try ScratchFolder.make("ict-placement").path
        document = folder + "/Doc.ict"
        try FileManager.default.copyItem(atPath: Repository.root.appendingPathComponent("SampleDocs/Coffee.ict").path, toPath: document)
    }

    /// Every item below `root` (links not followed) with its kind and bytes.
    private func snapshot(_ root: String) throws -> [String: String] {
        var items: [String: String] = [:]
        for relative in try FileManager.default.subpathsOfDirectory(atPath: root) {
            let path = root + "/" + relative
            let attributes = try FileManager.default.attributesOfItem(atPath: path)
            let kind = attributes[.type] as? FileAttributeType
            switch kind {
            case .typeRegular?: items[relative] = "file " + (FileManager.default.contents(atPath: path) ?? Data()).base64EncodedString()
            case .typeSymbolicLink?: items[relative] = "link " + (try FileManager.default.destinationOfSymbolicLink(atPath: path))
            default: items[relative] = "\(kind?.rawValue ?? "?")"
            }
        }
        return items
    }

    private func write(_ text: String, to name: String) throws {
        try Data(text.utf8).write(to: URL(fileURLWithPath: folder + "/" + name))
    }

    @Test func anExistingImageFileIsKeptWithoutForceAndReplacedWithIt() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write("my own photo", to: "out.photo.png")
        let before = try snapshot(folder)
        let refused = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", "out.json"], in: folder)
        #expect(!refused.hung)
        #expect(refused.status == 1)
        #expect(refused.stderr == "out.photo.png: error: already exists; --force replaces it\n")
        // Nothing written: not the JSON, not the thumbnail, the photo byte for byte as it was.
        #expect(try snapshot(folder) == before)

        let forced = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", "out.json", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        let photo = [UInt8](FileManager.default.contents(atPath: folder + "/out.photo.png") ?? Data())
        #expect(photo.starts(with: Self.pngSignature))
        #expect(FileManager.default.fileExists(atPath: folder + "/out.thumbnail.png"))
        #expect(FileManager.default.fileExists(atPath: folder + "/out.json"))
    }

    /// Without -o the JSON goes to standard output and the images beside the document.
    @Test func anImageFileBesideTheDocumentIsKeptWithoutForce() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write("keep", to: "Doc.thumbnail.png")
        let before = try snapshot(folder)
        let refused = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json"], in: folder)
        #expect(refused.status == 1)
        #expect(refused.stdout == "")
        #expect(refused.stderr == "Doc.thumbnail.png: error: already exists; --force replaces it\n")
        #expect(try snapshot(folder) == before)
        let forced = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "--force"], in: folder)
        #expect(forced.status == 0, "\(forced.stderr)")
        #expect(forced.stdout.contains(#""file" : "Doc.thumbnail.png""#) || forced.stdout.contains(#""file": "Doc.thumbnail.png""#))
        #expect([UInt8](FileManager.default.contents(atPath: folder + "/Doc.thumbnail.png") ?? Data()).starts(with: Self.pngSignature))
    }

    /// `-o /dev/null` used to write `/dev/null.photo.png`; a FIFO with no reader must not block either.
    @Test(arguments: ["/dev/null", "fifo"])
    func noImageFileIsMadeBesideADeviceOrPipe(_ output: String) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        if output == "fifo" { #expect(mkfifo(folder + "/fifo", 0o644) == 0) }
        let sideFile = output == "fifo" ? folder + "/fifo.photo.png" : "/dev/null.photo.png"
        let existedBefore = FileManager.default.fileExists(atPath: sideFile)
        let before = try snapshot(folder)
        let refused = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", output, "--force"], in: folder)
        #expect(!refused.hung)
        #expect(refused.status == 1)
        let kind = output == "fifo" ? "a FIFO or pipe" : "a character device"
        #expect(
            refused.stderr
                == "\(output): error: is \(kind), not a regular file: the photo and thumbnail files would go beside it, "
                + "and none is made beside a device or pipe; use --embed, or -o - (they then go beside the document)\n")
        #expect(try snapshot(folder) == before)
        #expect(FileManager.default.fileExists(atPath: sideFile) == existedBefore)
        if output == "/dev/null" {
            let embedded = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", "/dev/null", "--embed"], in: folder)
            #expect(embedded.status == 0, "\(embedded.stderr)")
            #expect(try snapshot(folder) == before)
        }
    }

    /// Even --force does not write an image into a FIFO or through a link into the package.
    @Test func forceReplacesOnlyARegularFileOutsideThePackage() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        #expect(mkfifo(folder + "/out.photo.png", 0o644) == 0)
        let before = try snapshot(folder)
        let fifo = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", "out.json", "--force"], in: folder)
        #expect(!fifo.hung)
        #expect(fifo.status == 1)
        #expect(fifo.stderr == "out.photo.png: error: is a FIFO or pipe, not a regular file: it is not replaced, even with --force\n")
        #expect(try snapshot(folder) == before)

        try FileManager.default.removeItem(atPath: folder + "/out.photo.png")
        try FileManager.default.createSymbolicLink(atPath: folder + "/out.photo.png", withDestinationPath: "Doc.ict/ctdocument.data")
        let linked = try snapshot(folder)
        let intoPackage = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "json", "-o", "out.json", "--force"], in: folder)
        #expect(intoPackage.status == 1)
        #expect(intoPackage.stderr == "out.photo.png: error: is inside Doc.ict, the package being read; write the output outside it\n")
        #expect(try snapshot(folder) == linked)
    }

    /// `ict thumbnail Doc.ict -o Doc.ict/ctdocument.data` and its kin, by any name.
    @Test(arguments: [
        ["thumbnail", "Doc.ict", "-o", "Doc.ict/ctdocument.data"],
        ["thumbnail", "Doc.ict/", "-o", "Doc.ict/new.png"],
        ["thumbnail", "Doc.ict", "-o", "link/ctdocument.metadata"],
        ["thumbnail", "Doc.ict", "-o", "Doc.ict/../Doc.ict/x.png"],
        ["convert", "Doc.ict", "--format", "json", "-o", "Doc.ict/out.json"],
        ["convert", "Doc.ict", "--format", "json", "--embed", "-o", "link/out.json"],
        ["convert", "Doc.ict", "--format", "zip", "-o", "Doc.ict/Doc.zip"],
        ["get", "Doc.ict", "ctdocument.data:", "--format", "xml1", "-o", "Doc.ict/ctdocument.data"],
    ])
    func anOutputInsideThePackageReadIsRefused(_ arguments: [String]) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/link", withDestinationPath: "Doc.ict")
        let before = try snapshot(folder)
        let run = try BoundedRunner.ict(arguments, in: folder)
        #expect(!run.hung)
        #expect(run.status == 1)
        let output = arguments[arguments.firstIndex(of: "-o")! + 1]
        let package = arguments[1].hasSuffix("/") ? "Doc.ict" : arguments[1]
        #expect(run.stderr == "\(output): error: is inside \(package), the package being read; write the output outside it\n")
        #expect(try snapshot(folder) == before)
    }

    /// The same commands writing outside the package still work.
    @Test func anOutputBesideThePackageIsWritten() throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let thumbnail = try BoundedRunner.ict(["thumbnail", "Doc.ict", "-o", "Doc.png"], in: folder)
        #expect(thumbnail.status == 0, "\(thumbnail.stderr)")
        #expect([UInt8](FileManager.default.contents(atPath: folder + "/Doc.png") ?? Data()).starts(with: Self.pngSignature))
        let zip = try BoundedRunner.ict(["convert", "Doc.ict", "--format", "zip", "-o", "Doc.ict.zip"], in: folder)
        #expect(zip.status == 0, "\(zip.stderr)")
    }

    // MARK: Inside any package (issue 38 item 10)

    private func realPath(_ path: String) -> String {
        guard let resolved = realpath(path, nil) else { return path }
        defer { free(resolved) }
        return String(cString: resolved)
    }

    /// `list --html` onto a page inside a package of the folder listed, by
    /// its name and through a link to the package: refused before anything
    /// is written, naming the page and the package; exit status 1.
    @Test(arguments: ["Doc.ict/index.html", "Link/index.html", "Doc.ict"])
    func listHTMLIsNotWrittenInsideAPackage(_ page: String) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.createSymbolicLink(atPath: folder + "/Link", withDestinationPath: "Doc.ict")
        let before = try snapshot(folder)
        for watch in [[], ["--watch"]] {
            let run = try ICTRunner.run(["list"] + watch + ["--html", folder + "/" + page, folder])
            #expect(run.status == 1, "\(run.stderr)")
            // Through the link, the package is named by its real path (`realpath`, from the C library).
            let package = page.hasPrefix("Link/") ? realPath(folder + "/Doc.ict") : folder + "/Doc.ict"
            #expect(
                run.stderr
                    == "\(folder)/\(page): error: is inside the package \(package), whose contents are its document's; write the output outside it\n")
            #expect(run.stdout == "")
        }
        #expect(try snapshot(folder) == before)
    }

    /// `convert --files-from LIST -o Doc.ict`: the folder of outputs is a
    /// package (or inside one), so nothing is converted into it.
    @Test(arguments: ["Doc.ict", "Doc.ict/sub"])
    func aBatchIsNotWrittenInsideAPackage(_ output: String) throws {
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try write("<plist><true/></plist>", to: "a.plist")
        try write("a.plist\n", to: "list.txt")
        try FileManager.default.createDirectory(atPath: folder + "/Doc.ict/sub", withIntermediateDirectories: true)
        let before = try snapshot(folder)
        let run = try BoundedRunner.ict(["convert", "--files-from", "list.txt", "--format", "json", "-o", output], in: folder)
        #expect(run.status == 1, "\(run.stderr)")
        #expect(run.stderr == "\(output): error: is inside the package Doc.ict, whose contents are its document's; write the output outside it\n")
        #expect(try snapshot(folder) == before)
        // Beside the package, the same batch is written.
        try FileManager.default.createDirectory(atPath: folder + "/out", withIntermediateDirectories: false)
        let beside = try BoundedRunner.ict(["convert", "--files-from", "list.txt", "--format", "json", "-o", "out"], in: folder)
        #expect(beside.status == 0, "\(beside.stderr)")
        #expect(FileManager.default.fileExists(atPath: folder + "/out/a.json"))
    }
}
