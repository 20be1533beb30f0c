#if !canImport(UniformTypeIdentifiers)
// The system types UniformTypeIdentifiers declares as `UTType` constants
// (UTCoreTypes), with Apple's identifiers.
extension UTType {
    /// `public.item`.
    public static let item = UTType(knownIdentifier: "public.item")
    /// `public.content`.
    public static let content = UTType(knownIdentifier: "public.content")
    /// `public.composite-content`.
    public static let compositeContent = UTType(knownIdentifier: "public.composite-content")
    /// `public.disk-image`.
    public static let diskImage = UTType(knownIdentifier: "public.disk-image")
    /// `public.data`.
    public static let data = UTType(knownIdentifier: "public.data")
    /// `public.directory`.
    public static let directory = UTType(knownIdentifier: "public.directory")
    /// `com.apple.resolvable`.
    public static let resolvable = UTType(knownIdentifier: "com.apple.resolvable")
    /// `public.symlink`.
    public static let symbolicLink = UTType(knownIdentifier: "public.symlink")
    /// `public.executable`.
    public static let executable = UTType(knownIdentifier: "public.executable")
    /// `com.apple.mount-point`.
    public static let mountPoint = UTType(knownIdentifier: "com.apple.mount-point")
    /// `com.apple.alias-file`.
    public static let aliasFile = UTType(knownIdentifier: "com.apple.alias-file")
    /// `com.apple.bookmark`.
    public static let urlBookmarkData = UTType(knownIdentifier: "com.apple.bookmark")
    /// `public.url`.
    public static let url = UTType(knownIdentifier: "public.url")
    /// `public.file-url`.
    public static let fileURL = UTType(knownIdentifier: "public.file-url")
    /// `public.text`.
    public static let text = UTType(knownIdentifier: "public.text")
    /// `public.plain-text`.
    public static let plainText = UTType(knownIdentifier: "public.plain-text")
    /// `public.utf8-plain-text`.
    public static let utf8PlainText = UTType(knownIdentifier: "public.utf8-plain-text")
    /// `public.utf16-external-plain-text`.
    public static let utf16ExternalPlainText = UTType(knownIdentifier: "public.utf16-external-plain-text")
    /// `public.utf16-plain-text`.
    public static let utf16PlainText = UTType(knownIdentifier: "public.utf16-plain-text")
    /// `public.delimited-values-text`.
    public static let delimitedText = UTType(knownIdentifier: "public.delimited-values-text")
    /// `public.comma-separated-values-text`.
    public static let commaSeparatedText = UTType(knownIdentifier: "public.comma-separated-values-text")
    /// `public.tab-separated-values-text`.
    public static let tabSeparatedText = UTType(knownIdentifier: "public.tab-separated-values-text")
    /// `public.utf8-tab-separated-values-text`.
    public static let utf8TabSeparatedText = UTType(knownIdentifier: "public.utf8-tab-separated-values-text")
    /// `public.rtf`.
    public static let rtf = UTType(knownIdentifier: "public.rtf")
    /// `public.html`.
    public static let html = UTType(knownIdentifier: "public.html")
    /// `public.xml`.
    public static let xml = UTType(knownIdentifier: "public.xml")
    /// `public.yaml`.
    public static let yaml = UTType(knownIdentifier: "public.yaml")
    /// `public.css`.
    public static let css = UTType(knownIdentifier: "public.css")
    /// `public.source-code`.
    public static let sourceCode = UTType(knownIdentifier: "public.source-code")
    /// `public.assembly-source`.
    public static let assemblyLanguageSource = UTType(knownIdentifier: "public.assembly-source")
    /// `public.c-source`.
    public static let cSource = UTType(knownIdentifier: "public.c-source")
    /// `public.objective-c-source`.
    public static let objectiveCSource = UTType(knownIdentifier: "public.objective-c-source")
    /// `public.swift-source`.
    public static let swiftSource = UTType(knownIdentifier: "public.swift-source")
    /// `public.c-plus-plus-source`.
    public static let cPlusPlusSource = UTType(knownIdentifier: "public.c-plus-plus-source")
    /// `public.objective-c-plus-plus-source`.
    public static let objectiveCPlusPlusSource = UTType(knownIdentifier: "public.objective-c-plus-plus-source")
    /// `public.c-header`.
    public static let cHeader = UTType(knownIdentifier: "public.c-header")
    /// `public.c-plus-plus-header`.
    public static let cPlusPlusHeader = UTType(knownIdentifier: "public.c-plus-plus-header")
    /// `public.script`.
    public static let script = UTType(knownIdentifier: "public.script")
    /// `com.apple.applescript.text`.
    public static let appleScript = UTType(knownIdentifier: "com.apple.applescript.text")
    /// `com.apple.applescript.script`.
    public static let osaScript = UTType(knownIdentifier: "com.apple.applescript.script")
    /// `com.apple.applescript.script-bundle`.
    public static let osaScriptBundle = UTType(knownIdentifier: "com.apple.applescript.script-bundle")
    /// `com.netscape.javascript-source`.
    public static let javaScript = UTType(knownIdentifier: "com.netscape.javascript-source")
    /// `public.shell-script`.
    public static let shellScript = UTType(knownIdentifier: "public.shell-script")
    /// `public.perl-script`.
    public static let perlScript = UTType(knownIdentifier: "public.perl-script")
    /// `public.python-script`.
    public static let pythonScript = UTType(knownIdentifier: "public.python-script")
    /// `public.ruby-script`.
    public static let rubyScript = UTType(knownIdentifier: "public.ruby-script")
    /// `public.php-script`.
    public static let phpScript = UTType(knownIdentifier: "public.php-script")
    /// `public.make-source`.
    public static let makefile = UTType(knownIdentifier: "public.make-source")
    /// `public.json`.
    public static let json = UTType(knownIdentifier: "public.json")
    /// `com.apple.property-list`.
    public static let propertyList = UTType(knownIdentifier: "com.apple.property-list")
    /// `com.apple.xml-property-list`.
    public static let xmlPropertyList = UTType(knownIdentifier: "com.apple.xml-property-list")
    /// `com.apple.binary-property-list`.
    public static let binaryPropertyList = UTType(knownIdentifier: "com.apple.binary-property-list")
    /// `com.adobe.pdf`.
    public static let pdf = UTType(knownIdentifier: "com.adobe.pdf")
    /// `com.apple.rtfd`.
    public static let rtfd = UTType(knownIdentifier: "com.apple.rtfd")
    /// `com.apple.flat-rtfd`.
    public static let flatRTFD = UTType(knownIdentifier: "com.apple.flat-rtfd")
    /// `com.apple.webarchive`.
    public static let webArchive = UTType(knownIdentifier: "com.apple.webarchive")
    /// `public.image`.
    public static let image = UTType(knownIdentifier: "public.image")
    /// `public.jpeg`.
    public static let jpeg = UTType(knownIdentifier: "public.jpeg")
    /// `public.tiff`.
    public static let tiff = UTType(knownIdentifier: "public.tiff")
    /// `com.compuserve.gif`.
    public static let gif = UTType(knownIdentifier: "com.compuserve.gif")
    /// `public.png`.
    public static let png = UTType(knownIdentifier: "public.png")
    /// `com.apple.icns`.
    public static let icns = UTType(knownIdentifier: "com.apple.icns")
    /// `com.microsoft.bmp`.
    public static let bmp = UTType(knownIdentifier: "com.microsoft.bmp")
    /// `com.microsoft.ico`.
    public static let ico = UTType(knownIdentifier: "com.microsoft.ico")
    /// `public.camera-raw-image`.
    public static let rawImage = UTType(knownIdentifier: "public.camera-raw-image")
    /// `public.svg-image`.
    public static let svg = UTType(knownIdentifier: "public.svg-image")
    /// `com.apple.live-photo`.
    public static let livePhoto = UTType(knownIdentifier: "com.apple.live-photo")
    /// `public.heif`.
    public static let heif = UTType(knownIdentifier: "public.heif")
    /// `public.heic`.
    public static let heic = UTType(knownIdentifier: "public.heic")
    /// `org.webmproject.webp`.
    public static let webP = UTType(knownIdentifier: "org.webmproject.webp")
    /// `public.3d-content`.
    public static let threeDContent = UTType(knownIdentifier: "public.3d-content")
    /// `com.pixar.universal-scene-description`.
    public static let usd = UTType(knownIdentifier: "com.pixar.universal-scene-description")
    /// `com.pixar.universal-scene-description-mobile`.
    public static let usdz = UTType(knownIdentifier: "com.pixar.universal-scene-description-mobile")
    /// `com.apple.reality`.
    public static let realityFile = UTType(knownIdentifier: "com.apple.reality")
    /// `com.apple.scenekit.scene`.
    public static let sceneKitScene = UTType(knownIdentifier: "com.apple.scenekit.scene")
    /// `com.apple.arobject`.
    public static let arReferenceObject = UTType(knownIdentifier: "com.apple.arobject")
    /// `public.audiovisual-content`.
    public static let audiovisualContent = UTType(knownIdentifier: "public.audiovisual-content")
    /// `public.movie`.
    public static let movie = UTType(knownIdentifier: "public.movie")
    /// `public.video`.
    public static let video = UTType(knownIdentifier: "public.video")
    /// `public.audio`.
    public static let audio = UTType(knownIdentifier: "public.audio")
    /// `com.apple.quicktime-movie`.
    public static let quickTimeMovie = UTType(knownIdentifier: "com.apple.quicktime-movie")
    /// `public.mpeg`.
    public static let mpeg = UTType(knownIdentifier: "public.mpeg")
    /// `public.mpeg-2-video`.
    public static let mpeg2Video = UTType(knownIdentifier: "public.mpeg-2-video")
    /// `public.mpeg-2-transport-stream`.
    public static let mpeg2TransportStream = UTType(knownIdentifier: "public.mpeg-2-transport-stream")
    /// `public.mp3`.
    public static let mp3 = UTType(knownIdentifier: "public.mp3")
    /// `public.mpeg-4`.
    public static let mpeg4Movie = UTType(knownIdentifier: "public.mpeg-4")
    /// `public.mpeg-4-audio`.
    public static let mpeg4Audio = UTType(knownIdentifier: "public.mpeg-4-audio")
    /// `com.apple.protected-mpeg-4-audio`.
    public static let appleProtectedMPEG4Audio = UTType(knownIdentifier: "com.apple.protected-mpeg-4-audio")
    /// `com.apple.protected-mpeg-4-video`.
    public static let appleProtectedMPEG4Video = UTType(knownIdentifier: "com.apple.protected-mpeg-4-video")
    /// `public.avi`.
    public static let avi = UTType(knownIdentifier: "public.avi")
    /// `public.aiff-audio`.
    public static let aiff = UTType(knownIdentifier: "public.aiff-audio")
    /// `com.microsoft.waveform-audio`.
    public static let wav = UTType(knownIdentifier: "com.microsoft.waveform-audio")
    /// `public.midi-audio`.
    public static let midi = UTType(knownIdentifier: "public.midi-audio")
    /// `public.playlist`.
    public static let playlist = UTType(knownIdentifier: "public.playlist")
    /// `public.m3u-playlist`.
    public static let m3uPlaylist = UTType(knownIdentifier: "public.m3u-playlist")
    /// `public.folder`.
    public static let folder = UTType(knownIdentifier: "public.folder")
    /// `public.volume`.
    public static let volume = UTType(knownIdentifier: "public.volume")
    /// `com.apple.package`.
    public static let package = UTType(knownIdentifier: "com.apple.package")
    /// `com.apple.bundle`.
    public static let bundle = UTType(knownIdentifier: "com.apple.bundle")
    /// `com.apple.plugin`.
    public static let pluginBundle = UTType(knownIdentifier: "com.apple.plugin")
    /// `com.apple.metadata-importer`.
    public static let spotlightImporter = UTType(knownIdentifier: "com.apple.metadata-importer")
    /// `com.apple.quicklook-generator`.
    public static let quickLookGenerator = UTType(knownIdentifier: "com.apple.quicklook-generator")
    /// `com.apple.xpc-service`.
    public static let xpcService = UTType(knownIdentifier: "com.apple.xpc-service")
    /// `com.apple.framework`.
    public static let framework = UTType(knownIdentifier: "com.apple.framework")
    /// `com.apple.application`.
    public static let application = UTType(knownIdentifier: "com.apple.application")
    /// `com.apple.application-bundle`.
    public static let applicationBundle = UTType(knownIdentifier: "com.apple.application-bundle")
    /// `com.apple.application-and-system-extension`.
    public static let applicationExtension = UTType(knownIdentifier: "com.apple.application-and-system-extension")
    /// `public.unix-executable`.
    public static let unixExecutable = UTType(knownIdentifier: "public.unix-executable")
    /// `com.microsoft.windows-executable`.
    public static let exe = UTType(knownIdentifier: "com.microsoft.windows-executable")
    /// `com.apple.systempreference.prefpane`.
    public static let systemPreferencesPane = UTType(knownIdentifier: "com.apple.systempreference.prefpane")
    /// `public.archive`.
    public static let archive = UTType(knownIdentifier: "public.archive")
    /// `org.gnu.gnu-zip-archive`.
    public static let gzip = UTType(knownIdentifier: "org.gnu.gnu-zip-archive")
    /// `public.bzip2-archive`.
    public static let bz2 = UTType(knownIdentifier: "public.bzip2-archive")
    /// `public.zip-archive`.
    public static let zip = UTType(knownIdentifier: "public.zip-archive")
    /// `com.apple.archive`.
    public static let appleArchive = UTType(knownIdentifier: "com.apple.archive")
    /// `public.tar-archive`.
    public static let tarArchive = UTType(knownIdentifier: "public.tar-archive")
    /// `public.spreadsheet`.
    public static let spreadsheet = UTType(knownIdentifier: "public.spreadsheet")
    /// `public.presentation`.
    public static let presentation = UTType(knownIdentifier: "public.presentation")
    /// `public.database`.
    public static let database = UTType(knownIdentifier: "public.database")
    /// `public.message`.
    public static let message = UTType(knownIdentifier: "public.message")
    /// `public.contact`.
    public static let contact = UTType(knownIdentifier: "public.contact")
    /// `public.vcard`.
    public static let vCard = UTType(knownIdentifier: "public.vcard")
    /// `public.to-do-item`.
    public static let toDoItem = UTType(knownIdentifier: "public.to-do-item")
    /// `public.calendar-event`.
    public static let calendarEvent = UTType(knownIdentifier: "public.calendar-event")
    /// `public.email-message`.
    public static let emailMessage = UTType(knownIdentifier: "public.email-message")
    /// `com.apple.internet-location`.
    public static let internetLocation = UTType(knownIdentifier: "com.apple.internet-location")
    /// `com.microsoft.internet-shortcut`.
    public static let internetShortcut = UTType(knownIdentifier: "com.microsoft.internet-shortcut")
    /// `public.font`.
    public static let font = UTType(knownIdentifier: "public.font")
    /// `public.bookmark`.
    public static let bookmark = UTType(knownIdentifier: "public.bookmark")
    /// `com.rsa.pkcs-12`.
    public static let pkcs12 = UTType(knownIdentifier: "com.rsa.pkcs-12")
    /// `public.x509-certificate`.
    public static let x509Certificate = UTType(knownIdentifier: "public.x509-certificate")
    /// `org.idpf.epub-container`.
    public static let epub = UTType(knownIdentifier: "org.idpf.epub-container")
    /// `public.log`.
    public static let log = UTType(knownIdentifier: "public.log")
    /// `com.apple.haptics.ahap`.
    public static let ahap = UTType(knownIdentifier: "com.apple.haptics.ahap")
    /// `public.geojson`.
    public static let geoJSON = UTType(knownIdentifier: "public.geojson")
}
#endif
