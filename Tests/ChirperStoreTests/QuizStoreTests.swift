import ChirperCore
import ChirperStore
import Foundation
import Testing
