// swift-tools-version: 6.1
import PackageDescription

let swiftSettings: [SwiftSetting] = [
    .swiftLanguageMode(.v6),
    .enableUpcomingFeature("ExistentialAny"),
    .enableUpcomingFeature("MemberImportVisibility"),
]

/// Debian's multiarch folder, where glib's and libchafa's configuration headers are (pkg-config's paths).
#if arch(arm64)
    let multiarch = "aarch64-linux-gnu"
#elseif arch(x86_64)
    let multiarch = "x86_64-linux-gnu"
#else
    #error("add this architecture's Debian multiarch folder (where glibconfig.h is) to Package.swift")
#endif

let package = Package(
    name: "chirper-play",
    platforms: [.macOS(.v13)],
    products: [
        .executable(name: "chirper-play", targets: ["chirper-play"])
    ],
    dependencies: [
        .package(url: "https://github.com/swift-server/async-http-client.git", from: "1.37.0"),
        .package(url: "https://github.com/apple/swift-nio.git", from: "2.101.2"),
        .package(url: "https://github.com/apple/swift-nio-ssl.git", from: "2.37.0"),
        .package(url: "https://github.com/apple/swift-certificates.git", from: "1.21.0"),
        .package(url: "https://github.com/apple/swift-crypto.git", "3.12.3"..<"5.0.0"),
        .package(url: "https://github.com/apple/swift-asn1.git", from: "1.7.0"),
    ],
    targets: [
        // Pure: models, queries, the state machines, command parsing, formatting. No I/O, no C library but libc's
        // mathematics and number formatting.
        .target(name: "ChirperCore", swiftSettings: swiftSettings),
        // What touches the system, kept out of ChirperCore: plain file reads and writes, threads of their own,
        // libraries loaded at their first use, and the one channel that hands things between tasks and threads.
        .target(name: "ChirperSystem", swiftSettings: swiftSettings),
        // The HTTP clients' set-up (TLS trust: the system's, SSL_CERT_FILE/SSL_CERT_DIR, --ca-file) and the one
        // funnel that turns AsyncHTTPClient's, NIO's and NIOSSL's errors into lines a user can act on.
        .target(
            name: "ChirperHTTP",
            dependencies: [
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
            ],
            swiftSettings: swiftSettings
        ),
        // Sources of recordings: the xeno-canto v3 client and the offline catalog.
        .target(
            name: "ChirperCatalog",
            dependencies: [
                "ChirperCore", "ChirperSystem", "ChirperHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
            ],
            swiftSettings: swiftSettings
        ),
        .systemLibrary(
            name: "CMPG123",
            pkgConfig: "libmpg123",
            providers: [.apt(["libmpg123-dev"])]
        ),
        // libpulse's headers (libpulse-dev), and the library loaded with dlopen at the first PulseAudio output
        // rather than linked (include/CPulse.h says why). No pkgConfig: libpulse.pc adds -D_REENTRANT/-pthread,
        // which SwiftPM flags as prohibited (a warning); the headers are in the default include path.
        .target(name: "CPulse", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The code that loads a C library with dlopen at its first use instead of linking it (a header of macros
        // each loader below uses): what a session does not use costs its start nothing.
        .target(name: "CLazyLibrary"),
        // libsyn123 ships with libmpg123 (same -dev package): its resampler does `speed … tape`. Loaded on demand.
        .target(name: "CSyn123", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // libsonic (Apache-2.0, libsonic-dev): the pitch-keeping time-stretch of `speed … keep`. Loaded on demand.
        .target(name: "CSonic", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // FFTW 3 (GPL-2.0-or-later, libfftw3-dev), single precision: the real FFT of the sonogram and the
        // measurements. Loaded on demand.
        .target(name: "CFFTW", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // libsoxr (LGPL-2.1+, libsoxr-dev): resampling to the 48 kHz of `identify`, without aliasing or delay.
        // Loaded on demand.
        .target(name: "CSoxr", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // ONNX Runtime's C API (MIT): the header fetched by `make ort-header` (include/COnnxRuntime.h says why),
        // the library (fetched by `make ort`) loaded with dlopen by the first model opened.
        .target(name: "COnnxRuntime", exclude: ["onnxruntime/copyright"], linkerSettings: [.linkedLibrary("dl")]),
        // libFLAC (BSD-3-Clause, libflac-dev): the decoder of FLAC recordings. Loaded on demand.
        .target(name: "CFLAC", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // glibc's malloc.h (mallopt), for the executable's allocator settings.
        .systemLibrary(name: "CMalloc"),
        // libedit (libedit-dev): the terminal's line editing and history. Loaded on demand, by a terminal only.
        .target(name: "CEditLine", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The only code that touches the C audio libraries.
        .target(
            name: "ChirperAudio",
            dependencies: [
                "ChirperCore", "ChirperSystem", "ChirperHTTP", "CFFTW", "CFLAC", "CMPG123", "CPulse", "CSonic", "CSoxr",
                "CSyn123",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // The only code that touches ONNX Runtime: a model file run on float rows.
        .target(
            name: "ChirperIdentify",
            dependencies: ["ChirperAudio", "ChirperCore", "ChirperSystem", "COnnxRuntime"],
            swiftSettings: swiftSettings
        ),
        // libchafa (LGPL-3.0+, libchafa-dev): a picture as sixels. Loaded on demand; its API is used in C, behind
        // one function (include/CChafa.h), so only this target needs the headers' paths (pkg-config's, without
        // its -lchafa -lglib-2.0: a library named on the link line is loaded at every start).
        .target(
            name: "CChafa",
            dependencies: ["CLazyLibrary"],
            cSettings: [
                .unsafeFlags([
                    "-I/usr/include/chafa", "-I/usr/lib/\(multiarch)/chafa/include", "-I/usr/include/glib-2.0",
                    "-I/usr/lib/\(multiarch)/glib-2.0/include",
                ])
            ],
            linkerSettings: [.linkedLibrary("dl")]
        ),
        // libpng's simplified API (libpng-dev): the sonogram as a PNG file. Loaded on demand.
        .target(name: "CPNG", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The only code that touches the C graphics libraries: PNG files and terminal pixel protocols.
        .target(
            name: "ChirperGraphics",
            dependencies: ["ChirperCore", "ChirperSystem", "CChafa", "CPNG"],
            swiftSettings: swiftSettings
        ),
        // SQLite (public domain, libsqlite3-dev): the quiz's store of decks, answers and schedules. Loaded on demand.
        .target(name: "CSQLite", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The only code that touches SQLite: the user's quiz progress on disk.
        .target(
            name: "ChirperStore",
            dependencies: ["ChirperCore", "ChirperSystem", "CSQLite"],
            swiftSettings: swiftSettings
        ),
        // sd-bus (libsystemd, LGPL-2.1+): the session bus, for MPRIS. Its headers (libsystemd-dev), and the
        // library loaded with dlopen when the MPRIS server starts rather than linked (include/CSystemd.h says why).
        .target(name: "CSystemd", dependencies: ["CLazyLibrary"], linkerSettings: [.linkedLibrary("dl")]),
        // The only code that touches D-Bus: the MPRIS server (media keys, playerctl, the desktop's widget).
        .target(
            name: "ChirperDesktop",
            dependencies: ["ChirperCore", "ChirperSystem", "CSystemd"],
            swiftSettings: swiftSettings
        ),
        // The REPL: one event loop over typed lines, list and playback changes; the pipe and terminal consoles.
        .target(
            name: "ChirperREPL",
            dependencies: ["ChirperCore", "ChirperSystem", "ChirperCatalog", "CEditLine"],
            swiftSettings: swiftSettings
        ),
        // @main: flags and wiring only.
        .executableTarget(
            name: "chirper-play",
            dependencies: [
                "ChirperCore", "ChirperSystem", "ChirperCatalog", "ChirperAudio", "ChirperGraphics", "ChirperHTTP",
                "ChirperREPL", "ChirperIdentify",
                "ChirperStore", "ChirperDesktop", "CMalloc",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make bench`'s floor: the HTTP client alone, fetching a page and reading a recording.
        .executableTarget(
            name: "chirper-floor",
            dependencies: [
                "ChirperHTTP",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        // `make fuzz`: libFuzzer over every reader of bytes nobody checked (`FuzzTarget.all`); `make test` replays
        // the regression corpus through the same targets.
        .target(
            name: "ChirperFuzzTargets",
            dependencies: ["ChirperCore", "ChirperSystem", "ChirperAudio", "ChirperStore"],
            swiftSettings: swiftSettings
        ),
        .executableTarget(name: "chirper-fuzz", dependencies: ["ChirperFuzzTargets"], swiftSettings: swiftSettings),
        // Test helpers: the loopback xeno-canto/audio server (HTTP, or HTTPS with a CA made per run), the private
        // PulseAudio harness.
        .target(
            name: "ChirperTestSupport",
            dependencies: [
                "ChirperCore", "ChirperSystem",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
                .product(name: "NIOHTTP1", package: "swift-nio"),
                .product(name: "NIOSSL", package: "swift-nio-ssl"),
                .product(name: "X509", package: "swift-certificates"),
                .product(name: "Crypto", package: "swift-crypto"),
                .product(name: "SwiftASN1", package: "swift-asn1"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperCoreTests", dependencies: ["ChirperCore", "ChirperTestSupport"], swiftSettings: swiftSettings),
        .testTarget(
            name: "ChirperSystemTests", dependencies: ["ChirperSystem", "ChirperTestSupport"],
            swiftSettings: swiftSettings),
        .testTarget(
            name: "ChirperCatalogTests",
            dependencies: [
                "ChirperCatalog", "ChirperHTTP", "ChirperSystem", "ChirperTestSupport",
                .product(name: "NIOCore", package: "swift-nio"),
                .product(name: "NIOPosix", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperHTTPTests",
            dependencies: [
                "ChirperHTTP", "ChirperTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOCore", package: "swift-nio"),
            ],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperAudioTests",
            dependencies: [
                "ChirperAudio", "ChirperCore", "ChirperSystem", "ChirperHTTP", "ChirperTestSupport",
                .product(name: "AsyncHTTPClient", package: "async-http-client"),
                .product(name: "NIOConcurrencyHelpers", package: "swift-nio"),
            ],
            exclude: ["Fixtures"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperIdentifyTests",
            dependencies: ["ChirperIdentify", "ChirperCore", "ChirperSystem"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperGraphicsTests",
            dependencies: ["ChirperGraphics", "ChirperCore", "ChirperTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperStoreTests",
            dependencies: ["ChirperStore", "ChirperCore", "ChirperTestSupport"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperREPLTests",
            dependencies: ["ChirperREPL", "ChirperCore", "ChirperSystem", "ChirperCatalog"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "ChirperFuzzTargetsTests",
            dependencies: ["ChirperFuzzTargets", "ChirperStore", "ChirperCore", "ChirperSystem", "ChirperTestSupport"],
            exclude: ["Regressions"],
            swiftSettings: swiftSettings
        ),
        .testTarget(
            name: "EndToEndTests",
            dependencies: ["ChirperCore", "ChirperSystem", "ChirperGraphics", "ChirperStore", "ChirperTestSupport"],
            swiftSettings: swiftSettings
        ),
    ]
)
