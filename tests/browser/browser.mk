# tests/browser/browser.mk - the page in headless Chromium, against a real server on loopback
TEST_LANES += test-browser

CHROMIUM ?= /usr/bin/chromium

# Every page test runs, even after one fails; the lane fails if any did.
BROWSER_TESTS = run lab topology trust classroom marks size campaign campaign_live signin class_predict join comparing latency links labels unread

test-browser: $(BUILD)/numalab web/vendor/.stamp
	$(Q)if ! command -v node >/dev/null 2>&1; then \
		echo "SKIP test-browser: node is not installed (apt-get install nodejs npm)"; \
	else \
		fail=0; for t in $(BROWSER_TESTS); do \
			echo "  BROWSER tests/browser/$$t.mjs"; \
			node tests/browser/$$t.mjs --numalab $(BUILD)/numalab --chromium $(CHROMIUM) \
				--web web --screenshots build/screenshots || fail=1; \
		done; exit $$fail; \
	fi

.PHONY: test-browser
