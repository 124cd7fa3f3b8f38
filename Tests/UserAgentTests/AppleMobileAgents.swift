import UserAgent

/// Safari, Chrome, Firefox and Edge on iPhone, iPad and iPod touch.
let appleMobileAgents: [UserAgentCase] = [
    UserAgentCase(
        "Safari on iPhone",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
        browser: "Safari 17.1", os: "iOS 17.1", type: .iphone, device: "iPhone", name: "Apple iPhone"),
    UserAgentCase(
        "Chrome (CriOS) on iPhone",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1_2 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
        browser: "Chrome 120", os: "iOS 17.1.2", type: .iphone, device: "iPhone", name: "Apple iPhone"),
    UserAgentCase(
        "Firefox (FxiOS) on iPhone",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) FxiOS/121.0 Mobile/15E148 Safari/605.1.15",
        browser: "Firefox 121", os: "iOS 17.1", type: .iphone, device: "iPhone", name: "Apple iPhone"),
    UserAgentCase(
        "Edge (EdgiOS) on iPhone",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 16_7_4 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/16.0 EdgiOS/120.0.2210.116 Mobile/15E148 Safari/605.1.15",
        browser: "Edge 120", os: "iOS 16.7.4", type: .iphone, device: "iPhone", name: "Apple iPhone"),
    UserAgentCase(
        "Facebook in-app browser on iPhone (no browser token)",
        "Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Mobile/15E148 [FBAN/FBIOS;FBAV/442.0.0.38.109;FBBV/540587361]",
        browser: nil, os: "iOS 17.1", type: .iphone, device: "iPhone", name: "Apple iPhone"),
    UserAgentCase(
        "Safari on iPad",
        "Mozilla/5.0 (iPad; CPU OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1",
        browser: "Safari 17.1", os: "iPadOS 17.1", type: .ipad, device: "iPad", name: "Apple iPad"),
    UserAgentCase(
        "Chrome (CriOS) on iPad",
        "Mozilla/5.0 (iPad; CPU OS 16_6 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) CriOS/120.0.6099.119 Mobile/15E148 Safari/604.1",
        browser: "Chrome 120", os: "iPadOS 16.6", type: .ipad, device: "iPad", name: "Apple iPad"),
    UserAgentCase(
        "Safari on an iPad with iOS 12 (before iPadOS)",
        "Mozilla/5.0 (iPad; CPU OS 12_5_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/12.1.2 Mobile/15E148 Safari/604.1",
        browser: "Safari 12.1", os: "iOS 12.5.7", type: .ipad, device: "iPad", name: "Apple iPad"),
    UserAgentCase(
        "Safari on iPod touch",
        "Mozilla/5.0 (iPod touch; CPU iPhone OS 15_7 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/15.6 Mobile/15E148 Safari/604.1",
        browser: "Safari 15.6", os: "iOS 15.7", type: .mobile, device: "iPod touch", name: "Apple iPod touch"),
]
