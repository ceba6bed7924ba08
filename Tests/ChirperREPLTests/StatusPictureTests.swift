import ChirperCore
import Testing

@testable import ChirperREPL

@Suite("The status's image: the sequences that draw it and take it away")
struct StatusPictureTests {
    /// The shape of libchafa's kitty output: the keys first, then the pixels in chunks.
    private let kitty = "\u{1B}_Ga=T,f=32,s=20,v=40,c=2,r=2,m=1\u{1B}\\\u{1B}_Gm=1;AAAA\u{1B}\\\u{1B}_Gm=0\u{1B}\\"

    @Test("kitty: named, quiet and leaving the cursor; placed again by name at its size in cells; deleted by name")
    func kittyImage() {
        let picture = StatusPicture(escape: kitty, protocol: .kitty, id: 7, lines: 2, column: 7)
        #expect(
            picture.draw
                == "\u{1B}_Gi=7,q=2,C=1,a=T,f=32,s=20,v=40,c=2,r=2,m=1\u{1B}\\\u{1B}_Gm=1;AAAA\u{1B}\\\u{1B}_Gm=0\u{1B}\\"
        )
        #expect(picture.redraw == "\u{1B}_Ga=p,i=7,q=2,C=1,c=2,r=2\u{1B}\\", "no pixels sent again")
        #expect(picture.remove == "\u{1B}_Ga=d,d=i,i=7,q=2\u{1B}\\", "the placement goes, the pixels stay")
        #expect(picture.forget == "\u{1B}_Ga=d,d=I,i=7,q=2\u{1B}\\", "the pixels are freed")
    }

    @Test("sixel: sent whole each time; erasing the text under it takes it away")
    func sixelImage() {
        let sixel = "\u{1B}P0;1;0q\"1;1;20;36#0;2;0;0;0#0!20~-\u{1B}\\"
        let picture = StatusPicture(escape: sixel, protocol: .sixel, id: 8, lines: 2, column: 7)
        #expect(picture.draw == sixel && picture.redraw == sixel)
        #expect(picture.remove.isEmpty && picture.forget.isEmpty)
    }
}
