"""The webhook allow-list judges an IPv6 address that carries an IPv4 one by the IPv4 address
inside: a connection to it reaches (directly, through a NAT64 translator or a 6to4/Teredo
relay) that IPv4 address, so ``::127.0.0.1`` is loopback whatever ``is_global`` says."""

from __future__ import annotations

import ipaddress

import pytest

from service.background.webhooks import _allow_list, _allowed_address, carried_ipv4, check_url
from service.base.errors import Unprocessable


@pytest.mark.parametrize(("address", "inside"), [
    ("::ffff:127.0.0.1", "127.0.0.1"),  # mapped
    ("::127.0.0.1", "127.0.0.1"),  # compatible
    ("::ffff:0:a9fe:a9fe", "169.254.169.254"),  # translated
    ("64:ff9b::a9fe:a9fe", "169.254.169.254"),  # NAT64 well-known prefix
    ("64:ff9b::a00:1", "10.0.0.1"),
    ("2002:7f00:1::1", "127.0.0.1"),  # 6to4
    ("2002:0808:0808::1", "8.8.8.8"),
    ("2001:0:4136:e378:8000:63bf:80ff:fffe", "127.0.0.1"),  # Teredo: the client, inverted
])
def test_an_ipv6_address_carrying_an_ipv4_one_yields_it(address, inside):
    assert ipaddress.IPv4Address(inside) in carried_ipv4(ipaddress.ip_address(address))


def test_a_local_use_nat64_address_yields_the_ipv4_of_every_rfc6052_prefix_length():
    # 169.254.169.254 placed as a /48 translator would (around the u octet), 8.8.8.8 as a /96 one
    crafted = ipaddress.IPv6Address("64:ff9b:1:a9fe:a9:fe00:808:808")
    assert {str(a) for a in carried_ipv4(crafted)} >= {"169.254.169.254", "8.8.8.8"}
    assert not _allowed_address(str(crafted), [])


@pytest.mark.parametrize("address", ["::127.0.0.1", "64:ff9b::a9fe:a9fe", "64:ff9b::a00:1", "2002:7f00:1::1",
                                     "::ffff:0:7f00:1", "64:ff9b:1::a00:1", "2002:c0a8:1::1", "::1", "::",
                                     "2001:0:4136:e378:8000:63bf:80ff:fffe"])
def test_an_address_carrying_a_private_ipv4_one_is_refused(address):
    assert not _allowed_address(address, [])


@pytest.mark.parametrize("address", ["64:ff9b::808:808", "2002:808:808::1", "2606:4700:4700::1111", "8.8.8.8"])
def test_an_address_carrying_a_public_ipv4_one_or_none_is_judged_as_before(address):
    assert _allowed_address(address, [])


def test_the_allow_list_admits_a_carrier_by_its_own_range_or_by_the_ipv4_inside():
    _, loopback = _allow_list(("127.0.0.0/8",))
    assert _allowed_address("::ffff:127.0.0.1", loopback)
    assert _allowed_address("2002:7f00:1::1", loopback)
    assert not _allowed_address("64:ff9b::a9fe:a9fe", loopback)
    _, nat64 = _allow_list(("64:ff9b::/96",))
    assert _allowed_address("64:ff9b::a9fe:a9fe", nat64)


@pytest.mark.parametrize("answer", ["::127.0.0.1", "64:ff9b::a9fe:a9fe", "2002:7f00:1::1"])
def test_a_name_whose_dns_answer_carries_a_private_ipv4_is_refused(monkeypatch, answer):
    import socket

    monkeypatch.setattr(socket, "getaddrinfo", lambda host, port, *a, **k: [
        (socket.AF_INET6, socket.SOCK_STREAM, 6, "", (answer, port, 0, 0))])
    with pytest.raises(Unprocessable, match=answer):
        check_url("https://hooks.example/x", ())
