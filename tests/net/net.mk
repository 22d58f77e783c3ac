# tests/net/net.mk - the lab room on a real network: two network namespaces
# joined by a veth pair (made by the lane, torn down after, no route out), the
# server in one listening on 0.0.0.0 and on its address, headless Chromium in
# the other opening every printed link and the projector's QR code, a phone
# joining by the code. Needs root and iproute2 (SKIP otherwise).
#   make test-net                 against $(BUILD)/numalab
#   make test-net NET_TAG=x       another tag in the names of the namespaces
#                                 and devices, so lanes run at once do not meet
NET_TAG ?= i33

test-net: $(BUILD)/numalab web/vendor/.stamp
	$(Q)NET_TAG=$(NET_TAG) tests/net/lan.sh $(BUILD)/numalab $(CHROMIUM)

TEST_LANES += test-net
.PHONY: test-net
