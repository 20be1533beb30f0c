import AppleCompatibility
import Foundation
import TestSupport
import Testing

/// `UTType` against Apple's documentation of each member and of the system
/// types (the identifiers, conformances and tags of UTCoreTypes).
struct UTTypeTests {
    @Test func constantsHaveApplesIdentifiers() {
        // Apple's documentation of each constant gives its identifier.
        #expect(UTType.png.identifier == "public.png")
        #expect(UTType.plainText.identifier == "public.plain-text")
        #expect(UTType.package.identifier == "com.apple.package")
        #expect(UTType.propertyList.identifier == "com.apple.property-list")
        #expect(UTType.tarArchive.identifier == "public.tar-archive")
        #expect(UTType.geoJSON.identifier == "public.geojson")
        #expect(UTType.png.description == "public.png")
    }

    @Test func identifierInitializerKnowsDeclaredAndDynamicTypesOnly() throws {
        #expect(UTType("public.png") == .png)
        // Identifiers compare without regard to case.
        #expect(UTType("PUBLIC.PNG") == .png)
        #expect(UTType("com.example.nobody-declares-this") == nil)
        #expect(UTType("") == nil)
        let dynamic = try #require(UTType(filenameExtension: "zzqx"))
        #expect(UTType(dynamic.identifier) == dynamic)
    }

    @Test func tagsLeadToTypesAndBack() throws {
        #expect(UTType(filenameExtension: "png") == .png)
        #expect(UTType(filenameExtension: "jpg") == .jpeg)
        #expect(UTType(mimeType: "image/png") == .png)
        #expect(UTType(mimeType: "application/pdf") == .pdf)
        #expect(UTType(tag: "txt", tagClass: .filenameExtension, conformingTo: nil) == .plainText)
        #expect(UTType.png.preferredFilenameExtension == "png")
        #expect(UTType.png.preferredMIMEType == "image/png")
        #expect(UTType.png.tags[.filenameExtension]?.contains("png") == true)
        #expect(UTType.png.tags[.mimeType]?.contains("image/png") == true)
        // public.folder has no tags.
        #expect(UTType.folder.preferredFilenameExtension == nil)
        #expect(UTType.types(tag: "png", tagClass: .filenameExtension, conformingTo: nil).first == .png)
        // Conformance filters: a PNG is no text.
        #expect(UTType(filenameExtension: "png", conformingTo: .text) == nil)
        #expect(UTType.types(tag: "png", tagClass: .filenameExtension, conformingTo: .text).isEmpty)
    }

    @Test func invalidTagsGiveNoType() {
        #expect(UTType(filenameExtension: "") == nil)
        #expect(UTType(filenameExtension: "a/b") == nil)
        #expect(UTType(mimeType: "") == nil)
        #expect(UTType.types(tag: "", tagClass: .mimeType, conformingTo: nil).isEmpty)
    }

    @Test func hierarchyFollowsTheSystemDeclarations() {
        // Apple: public.png conforms to public.image; public.image to public.data and public.content.
        #expect(UTType.png.conforms(to: .image))
        #expect(UTType.png.conforms(to: .data))
        #expect(UTType.png.conforms(to: .png))
        #expect(!UTType.png.conforms(to: .text))
        #expect(UTType.png.isSubtype(of: .image))
        #expect(!UTType.png.isSubtype(of: .png))
        #expect(UTType.image.isSupertype(of: .png))
        #expect(!UTType.image.isSupertype(of: .image))
        #expect(UTType.png.supertypes.isSuperset(of: [.image, .data, .item, .content]))
        #expect(!UTType.png.supertypes.contains(.png))
        // com.apple.rtfd is a package and composite content.
        #expect(UTType.rtfd.conforms(to: .package))
        #expect(UTType.rtfd.conforms(to: .compositeContent))
    }

    @Test func declaredDynamicAndPublicFlags() throws {
        #expect(UTType.png.isDeclared && !UTType.png.isDynamic && UTType.png.isPublic)
        #expect(UTType.pdf.isDeclared && !UTType.pdf.isPublic)
        let dynamic = try #require(UTType(filenameExtension: "zzqx"))
        #expect(dynamic.isDynamic && !dynamic.isDeclared && !dynamic.isPublic)
        #expect(dynamic.identifier.hasPrefix("dyn."))
        #expect(dynamic.tags[.filenameExtension] == ["zzqx"])
    }

    @Test func localizedDescriptionIsTheDeclarationsDescription() {
        #expect(UTType.png.localizedDescription?.isEmpty == false)
        #expect(UTType.png.localizedDescription?.localizedCaseInsensitiveContains("PNG") == true)
    }

    #if !canImport(UniformTypeIdentifiers)
    @Test func everyConstantExceptGeoJSONIsDeclaredAmongTheSystemTypes() {
        // Schemas/system-types.plist (macOS 13) predates public.geojson (macOS 15).
        let constants: [UTType] = [
            .item, .content, .compositeContent, .diskImage, .data, .directory, .resolvable,
            .symbolicLink, .executable, .mountPoint, .aliasFile, .urlBookmarkData, .url, .fileURL, .text, .plainText,
            .utf8PlainText, .utf16ExternalPlainText, .utf16PlainText, .delimitedText, .commaSeparatedText,
            .tabSeparatedText, .utf8TabSeparatedText, .rtf, .html, .xml, .yaml, .css, .sourceCode, .assemblyLanguageSource,
            .cSource, .objectiveCSource, .swiftSource, .cPlusPlusSource, .objectiveCPlusPlusSource, .cHeader,
            .cPlusPlusHeader, .script, .appleScript, .osaScript, .osaScriptBundle, .javaScript, .shellScript, .perlScript,
            .pythonScript, .rubyScript, .phpScript, .makefile, .json, .propertyList, .xmlPropertyList, .binaryPropertyList,
            .pdf, .rtfd, .flatRTFD, .webArchive, .image, .jpeg, .tiff, .gif, .png, .icns, .bmp, .ico, .rawImage, .svg,
            .livePhoto, .heif, .heic, .webP, .threeDContent, .usd, .usdz, .realityFile, .sceneKitScene, .arReferenceObject,
            .audiovisualContent, .movie, .video, .audio, .quickTimeMovie, .mpeg, .mpeg2Video, .mpeg2TransportStream, .mp3,
            .mpeg4Movie, .mpeg4Audio, .appleProtectedMPEG4Audio, .appleProtectedMPEG4Video, .avi, .aiff, .wav, .midi,
            .playlist, .m3uPlaylist, .folder, .volume, .package, .bundle, .pluginBundle, .spotlightImporter,
            .quickLookGenerator, .xpcService, .framework, .application, .applicationBundle, .applicationExtension,
            .unixExecutable, .exe, .systemPreferencesPane, .archive, .gzip, .bz2, .zip, .appleArchive, .tarArchive,
            .spreadsheet, .presentation, .database, .message, .contact, .vCard, .toDoItem, .calendarEvent, .emailMessage,
            .internetLocation, .internetShortcut, .font, .bookmark, .pkcs12, .x509Certificate, .epub, .log, .ahap,
        ]
        #expect(constants.filter { !$0.isDeclared }.isEmpty)
        #expect(!UTType.geoJSON.isDeclared)
    }

    @Test func typesDeclaredInCodeConformToTheirParent() throws {
        let exported = UTType(exportedAs: "com.example.ictkit-test.exported", conformingTo: .package)
        #expect(exported.conforms(to: .package))
        #expect(exported.conforms(to: .directory))
        #expect(!exported.isDeclared)
        #expect(UTType("com.example.ictkit-test.exported") == exported)
        let imported = UTType(importedAs: "com.example.ictkit-test.imported")
        #expect(imported.supertypes.isEmpty)
        // A declared type keeps its declaration: exportedAs does not redefine public.png.
        let png = UTType(exportedAs: "public.png", conformingTo: .text)
        #expect(!png.conforms(to: .text))
        #expect(png.isDeclared)
    }

    @Test(.interopCorpus)
    func registeredInfoPlistDeclaresImportedAndExportedTypes() throws {
        try UTType.registerDeclarations(fromInfoPlistAt: InteropCorpus.url("uti-apps/Skim/Info.plist"))
        // Skim's Info.plist: net.sourceforge.skim-app.pdfd -> [com.apple.package, public.composite-content], extension pdfd.
        let pdfd = try #require(UTType(filenameExtension: "pdfd", conformingTo: .package))
        #expect(pdfd.identifier == "net.sourceforge.skim-app.pdfd")
        #expect(pdfd.conforms(to: .package) && pdfd.conforms(to: .compositeContent))
        #expect(pdfd.localizedDescription == "PDF Bundle")
        // Imported: org.tug.tex.dvi, extension dvi, conforms to public.data.
        let dvi = UTType(importedAs: "org.tug.tex.dvi")
        #expect(dvi.isDeclared)
        #expect(dvi.preferredFilenameExtension == "dvi")
        #expect(UTType(filenameExtension: "dvi") == dvi)
        // The import of com.adobe.pdf does not replace the system's declaration.
        #expect(UTType.pdf.localizedDescription != nil)
        #expect(UTType(filenameExtension: "pdf") == .pdf)
    }

    @Test func registeringAFileThatIsNotAPropertyListThrows() {
        #expect(throws: (any Error).self) {
            try UTType.registerDeclarations(fromInfoPlistAt: URL(fileURLWithPath: "/nonexistent/Info.plist"))
        }
        #expect(throws: (any Error).self) {
            try UTType.registerDeclarations(fromInfoPlistAt: URL(fileURLWithPath: #filePath))
        }
    }
    #endif
}
