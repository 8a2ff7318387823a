"""Credentials never follow a redirect to another host: chat delivery and the Slack bot, against evil servers."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from briefing.errors import BriefError
from briefing.ops.deliver import ChatTarget, DeliveryError, Message
from briefing.settings import ChatDelivery, Settings, WorkspaceSettings
from tests.test_security import Vendor

TOKEN = "xoxb-evil-redirect-9f8e7d"


@pytest.fixture
def servers() -> Iterator[tuple[Vendor, Vendor]]:
    catcher = Vendor("record")
    # 127.0.0.1 and localhost are different hosts to this rule, as to a browser.
    origin = Vendor("redirect", redirect_to=catcher.url.replace("127.0.0.1", "localhost") + "/caught")
    yield origin, catcher
    origin.stop()
    catcher.stop()


def test_chat_delivery_refuses_a_cross_host_redirect(
    servers: tuple[Vendor, Vendor], monkeypatch: pytest.MonkeyPatch
) -> None:
    origin, catcher = servers
    monkeypatch.setenv("CHAT_TOKEN", TOKEN)
    target = ChatTarget(ChatDelivery(token_env="CHAT_TOKEN", channel="C1", base_url=origin.url + "/api/"), "slack")
    with pytest.raises(DeliveryError) as info:
        target.send(Message("s", "t", "k"))
    assert origin.authorizations == [f"Bearer {TOKEN}"]  # it did call the configured host
    assert catcher.authorizations == []  # and nothing, token or not, went to the other one
    assert TOKEN not in str(info.value) and "\n" not in str(info.value)


def test_a_redirect_to_another_port_is_refused_and_a_direct_call_works(monkeypatch: pytest.MonkeyPatch) -> None:
    catcher = Vendor("record")
    origin = Vendor("redirect", redirect_to=catcher.url)  # same scheme and host, another port
    try:
        monkeypatch.setenv("CHAT_TOKEN", TOKEN)
        target = ChatTarget(ChatDelivery(token_env="CHAT_TOKEN", channel="C1", base_url=origin.url + "/api/"), "x")
        with pytest.raises(DeliveryError):
            target.send(Message("s", "t", "k"))
        assert catcher.authorizations == []
        direct = ChatTarget(ChatDelivery(token_env="CHAT_TOKEN", channel="C1", base_url=catcher.url + "/api/"), "x")
        direct.send(Message("s", "t", "k"))  # the control: the same client reaches a server that answers
        assert catcher.authorizations == [f"Bearer {TOKEN}"]
    finally:
        origin.stop()
        catcher.stop()


def test_the_bot_never_sends_its_token_to_another_host(servers: tuple[Vendor, Vendor], tmp_path: object) -> None:
    from briefing.slack_bot import Secrets, SlackBot

    origin, catcher = servers
    settings = Settings(workspace=WorkspaceSettings(name="bot"), home=tmp_path)
    settings.slack_bot.base_url = origin.url + "/api/"
    with pytest.raises(BriefError):
        SlackBot(settings, Secrets(token=TOKEN, signing_secret="s" * 32, app_token=None))
    assert origin.authorizations and catcher.authorizations == []
