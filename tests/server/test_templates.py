"""Tests for django_mcp.server.templates: RFC 6570 expansion and matching."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any

import pytest

from django_mcp.server import templates
from django_mcp.server.templates import TemplateError, UriTemplate

# RFC 6570 §3.2 example variables; "keys" keeps the RFC's member order.
RFC_VARIABLES: dict[str, Any] = {
    "count": ["one", "two", "three"],
    "dom": ["example", "com"],
    "dub": "me/too",
    "hello": "Hello World!",
    "half": "50%",
    "var": "value",
    "who": "fred",
    "base": "http://example.com/home/",
    "path": "/foo/bar",
    "list": ["red", "green", "blue"],
    "keys": {"semi": ";", "dot": ".", "comma": ","},
    "v": "6",
    "x": "1024",
    "y": "768",
    "empty": "",
    "empty_keys": {},
    "undef": None,
}


def never(uri: str) -> Mapping[str, Any] | None:
    """Match nothing; lets tests build templates that are not simple."""
    return None


def expand(template: str, variables: Mapping[str, Any] = RFC_VARIABLES) -> str:
    return UriTemplate(template, matcher=never).expand(variables)


# -- expansion ----------------------------------------------------------------


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        # §1.2, level 1 to 3 examples not repeated below.
        ("map?{x,y}", "map?1024,768"),
        ("X{#hello}", "X#Hello%20World!"),
        ("X{.x,y}", "X.1024.768"),
        # §3.2.2 simple string expansion.
        ("{var}", "value"),
        ("{hello}", "Hello%20World%21"),
        ("{half}", "50%25"),
        ("O{empty}X", "OX"),
        ("O{undef}X", "OX"),
        ("{x,y}", "1024,768"),
        ("{x,hello,y}", "1024,Hello%20World%21,768"),
        ("?{x,empty}", "?1024,"),
        ("?{x,undef}", "?1024"),
        ("?{undef,y}", "?768"),
        ("{var:3}", "val"),
        ("{var:30}", "value"),
        ("{list}", "red,green,blue"),
        ("{list*}", "red,green,blue"),
        ("{keys}", "semi,%3B,dot,.,comma,%2C"),
        ("{keys*}", "semi=%3B,dot=.,comma=%2C"),
        # §3.2.3 reserved expansion.
        ("{+var}", "value"),
        ("{+hello}", "Hello%20World!"),
        ("{+half}", "50%25"),
        ("{base}index", "http%3A%2F%2Fexample.com%2Fhome%2Findex"),
        ("{+base}index", "http://example.com/home/index"),
        ("O{+empty}X", "OX"),
        ("O{+undef}X", "OX"),
        ("{+path}/here", "/foo/bar/here"),
        ("here?ref={+path}", "here?ref=/foo/bar"),
        ("up{+path}{var}/here", "up/foo/barvalue/here"),
        ("{+x,hello,y}", "1024,Hello%20World!,768"),
        ("{+path,x}/here", "/foo/bar,1024/here"),
        ("{+path:6}/here", "/foo/b/here"),
        ("{+list}", "red,green,blue"),
        ("{+list*}", "red,green,blue"),
        ("{+keys}", "semi,;,dot,.,comma,,"),
        ("{+keys*}", "semi=;,dot=.,comma=,"),
        # §3.2.4 fragment expansion.
        ("{#var}", "#value"),
        ("{#hello}", "#Hello%20World!"),
        ("{#half}", "#50%25"),
        ("foo{#empty}", "foo#"),
        ("foo{#undef}", "foo"),
        ("{#x,hello,y}", "#1024,Hello%20World!,768"),
        ("{#path,x}/here", "#/foo/bar,1024/here"),
        ("{#path:6}/here", "#/foo/b/here"),
        ("{#list}", "#red,green,blue"),
        ("{#list*}", "#red,green,blue"),
        ("{#keys}", "#semi,;,dot,.,comma,,"),
        ("{#keys*}", "#semi=;,dot=.,comma=,"),
        # §3.2.5 label expansion with dot-prefix.
        ("{.who}", ".fred"),
        ("{.who,who}", ".fred.fred"),
        ("{.half,who}", ".50%25.fred"),
        ("www{.dom*}", "www.example.com"),
        ("X{.var}", "X.value"),
        ("X{.empty}", "X."),
        ("X{.undef}", "X"),
        ("X{.var:3}", "X.val"),
        ("X{.list}", "X.red,green,blue"),
        ("X{.list*}", "X.red.green.blue"),
        ("X{.keys}", "X.semi,%3B,dot,.,comma,%2C"),
        ("X{.keys*}", "X.semi=%3B.dot=..comma=%2C"),
        ("X{.empty_keys}", "X"),
        ("X{.empty_keys*}", "X"),
        # §3.2.6 path segment expansion.
        ("{/who}", "/fred"),
        ("{/who,who}", "/fred/fred"),
        ("{/half,who}", "/50%25/fred"),
        ("{/who,dub}", "/fred/me%2Ftoo"),
        ("{/var}", "/value"),
        ("{/var,empty}", "/value/"),
        ("{/var,undef}", "/value"),
        ("{/var,x}/here", "/value/1024/here"),
        ("{/var:1,var}", "/v/value"),
        ("{/list}", "/red,green,blue"),
        ("{/list*}", "/red/green/blue"),
        ("{/list*,path:4}", "/red/green/blue/%2Ffoo"),
        ("{/keys}", "/semi,%3B,dot,.,comma,%2C"),
        ("{/keys*}", "/semi=%3B/dot=./comma=%2C"),
        # §3.2.7 path-style parameter expansion.
        ("{;who}", ";who=fred"),
        ("{;half}", ";half=50%25"),
        ("{;empty}", ";empty"),
        ("{;v,empty,who}", ";v=6;empty;who=fred"),
        ("{;v,bar,who}", ";v=6;who=fred"),
        ("{;x,y}", ";x=1024;y=768"),
        ("{;x,y,empty}", ";x=1024;y=768;empty"),
        ("{;x,y,undef}", ";x=1024;y=768"),
        ("{;hello:5}", ";hello=Hello"),
        ("{;list}", ";list=red,green,blue"),
        ("{;list*}", ";list=red;list=green;list=blue"),
        ("{;keys}", ";keys=semi,%3B,dot,.,comma,%2C"),
        ("{;keys*}", ";semi=%3B;dot=.;comma=%2C"),
        # §3.2.8 form-style query expansion.
        ("{?who}", "?who=fred"),
        ("{?half}", "?half=50%25"),
        ("{?x,y}", "?x=1024&y=768"),
        ("{?x,y,empty}", "?x=1024&y=768&empty="),
        ("{?x,y,undef}", "?x=1024&y=768"),
        ("{?var:3}", "?var=val"),
        ("{?list}", "?list=red,green,blue"),
        ("{?list*}", "?list=red&list=green&list=blue"),
        ("{?keys}", "?keys=semi,%3B,dot,.,comma,%2C"),
        ("{?keys*}", "?semi=%3B&dot=.&comma=%2C"),
        # §3.2.9 form-style query continuation.
        ("{&who}", "&who=fred"),
        ("{&half}", "&half=50%25"),
        ("?fixed=yes{&x}", "?fixed=yes&x=1024"),
        ("{&x,y,empty}", "&x=1024&y=768&empty="),
        ("{&var:3}", "&var=val"),
        ("{&list}", "&list=red,green,blue"),
        ("{&list*}", "&list=red&list=green&list=blue"),
        ("{&keys}", "&keys=semi,%3B,dot,.,comma,%2C"),
        ("{&keys*}", "&semi=%3B&dot=.&comma=%2C"),
    ],
)
def test_expansion_follows_rfc_6570_examples(template: str, expected: str) -> None:
    assert expand(template) == expected


@pytest.mark.parametrize(
    ("template", "variables", "expected"),
    [
        ("{flag}", {"flag": True}, "true"),
        ("{flag}", {"flag": False}, "false"),
        ("{?flag}", {"flag": True}, "?flag=true"),
        ("{;flag}", {"flag": False}, ";flag=false"),
        ("{/flags}", {"flags": [True, False]}, "/true,false"),
        (
            "{?opts*}",
            {"opts": {"verbose": True, "dry": False}},
            "?verbose=true&dry=false",
        ),
        ("{flag:3}", {"flag": True}, "tru"),
    ],
)
def test_booleans_expand_as_lowercase_json_literals(
    template: str, variables: dict[str, Any], expected: str
) -> None:
    assert expand(template, variables) == expected


@pytest.mark.parametrize(
    ("template", "expected"),
    [
        ("{?keys*}", "?zeta=1&alpha=2&mid=3"),
        ("{?keys}", "?keys=zeta,1,alpha,2,mid,3"),
        ("{keys*}", "zeta=1,alpha=2,mid=3"),
        ("{/keys*}", "/zeta=1/alpha=2/mid=3"),
        ("{;keys*}", ";zeta=1;alpha=2;mid=3"),
    ],
)
def test_mapping_values_keep_insertion_order(template: str, expected: str) -> None:
    keys = {"zeta": "1", "alpha": "2", "mid": "3"}
    assert expand(template, {"keys": keys}) == expected


def test_utf8_value_is_percent_encoded_and_matched_back() -> None:
    template = UriTemplate("demo://greetings/{name}")
    uri = template.expand({"name": "héllo"})
    assert uri == "demo://greetings/h%C3%A9llo"
    assert template.match(uri) == {"name": "héllo"}


def test_utf8_is_encoded_by_every_operator() -> None:
    variables = {"v": "é ü"}
    assert expand("{v}", variables) == "%C3%A9%20%C3%BC"
    assert expand("{+v}", variables) == "%C3%A9%20%C3%BC"
    assert expand("{#v}", variables) == "#%C3%A9%20%C3%BC"
    assert expand("{?v}", variables) == "?v=%C3%A9%20%C3%BC"


def test_prefix_counts_characters_not_octets() -> None:
    assert expand("{v:2}", {"v": "héllo"}) == "h%C3%A9"
    assert expand("{+v:2}", {"v": "héllo"}) == "h%C3%A9"


def test_reserved_prefix_does_not_split_a_pct_encoded_triplet() -> None:
    assert expand("{+v:2}", {"v": "%20abc"}) == "%20a"


def test_reserved_expansion_encodes_bare_percent_and_keeps_triplets() -> None:
    assert expand("{+v}", {"v": "50% off%20now é"}) == "50%25%20off%20now%20%C3%A9"
    assert expand("{#v}", {"v": "a%2Fb c"}) == "#a%2Fb%20c"


@pytest.mark.parametrize("value", [["a", "b"], ("a", "b"), [], {"a": "b"}, {}], ids=repr)
def test_prefix_on_list_or_mapping_is_refused(value: object) -> None:
    template = UriTemplate("demo://{var:3}", matcher=never)
    with pytest.raises(TemplateError) as caught:
        template.expand({"var": value})
    assert caught.value.template == "demo://{var:3}"
    assert "prefix" in caught.value.reason


def test_prefix_on_undefined_variable_is_allowed() -> None:
    assert expand("demo://x{/var:3}", {}) == "demo://x"


@pytest.mark.parametrize("value", [None, [], (), {}, [None], {"a": None}], ids=repr)
def test_empty_containers_and_none_are_undefined(value: object) -> None:
    assert expand("X{/v}{?v}Y", {"v": value}) == "XY"


def test_none_members_and_none_valued_pairs_are_skipped() -> None:
    assert expand("{/v*}", {"v": ["a", None, "b"]}) == "/a/b"
    assert expand("{?m*}", {"m": {"a": "1", "b": None, "c": "3"}}) == "?a=1&c=3"


def test_non_string_scalars_render_with_str() -> None:
    ident = uuid.UUID("12345678-1234-5678-1234-567812345678")
    variables = {"n": 42, "f": 1.5, "id": ident}
    assert expand("{n}/{f}/{id}", variables) == ("42/1.5/12345678-1234-5678-1234-567812345678")


@pytest.mark.parametrize(
    "value",
    [b"bytes", {"a", "b"}, ["a", ["nested"]], {"k": ["nested"]}, iter(["a"])],
    ids=["bytes", "set", "nested-list", "nested-mapping", "iterator"],
)
def test_values_that_cannot_be_expanded_raise_type_error(value: object) -> None:
    with pytest.raises(TypeError):
        expand("{v}", {"v": value})


def test_extra_variables_are_ignored_by_expansion() -> None:
    assert expand("demo://{a}", {"a": "1", "b": "2"}) == "demo://1"


def test_non_ascii_literal_is_percent_encoded_and_matched() -> None:
    template = UriTemplate("demo://café/{id}")
    assert template.expand({"id": "1"}) == "demo://caf%C3%A9/1"
    assert template.match("demo://caf%C3%A9/1") == {"id": "1"}
    assert template.match("demo://café/1") is None


# -- syntax validation ----------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "demo://{",
        "demo://}",
        "demo://{a",
        "demo://a}{b}",
        "demo://{a{b}}",
        "demo://{}",
        "demo://{a b}",
        "demo://{a-b}",
        "demo://{a..b}",
        "demo://{.a.}",
        "demo://{a,}",
        "demo://{a,,b}",
        "demo://{+}",
        "demo://{a=default}",
        "demo://{=a}",
        "demo://{,a}",
        "demo://{!a}",
        "demo://{@a}",
        "demo://{|a}",
        "demo://{a:0}",
        "demo://{a:01}",
        "demo://{a:10000}",
        "demo://{a:x}",
        "demo://{a:3*}",
        "demo://{a*:3}",
        "demo://{a**}",
        "demo://{a%2}",
        "demo://x y/{a}",
        "demo://50%/{a}",
        "demo://%zz/{a}",
        "demo://<{a}>",
        'demo://"{a}"',
        "demo://'{a}'",
        "demo://a\\b/{c}",
        "demo://a^b/{c}",
        "demo://a`b/{c}",
        "demo://a|b/{c}",
        "demo://\x00/{a}",
        "demo://\ud800/{a}",
    ],
)
def test_invalid_template_syntax_is_refused(template: str) -> None:
    with pytest.raises(TemplateError) as caught:
        UriTemplate(template, matcher=never)
    assert caught.value.template == template
    assert caught.value.reason
    assert repr(template) in str(caught.value)


@pytest.mark.parametrize(
    "template",
    [
        "demo://{a:9999}",
        "demo://{a:1}",
        "demo://{a.b}",
        "demo://{a%20b}",
        "demo://{_0}",
        "demo://%20/{a}",
        "demo://a!$&()*+,;=:@[]/{b}",
        "demo://x/{a}?y=1#frag",
        "plain://no/variables",
        "",
    ],
)
def test_valid_template_syntax_is_accepted(template: str) -> None:
    UriTemplate(template, matcher=never)


def test_reserved_operator_error_cites_the_rfc() -> None:
    with pytest.raises(TemplateError) as caught:
        UriTemplate("demo://{!a}")
    assert "reserved" in caught.value.reason
    assert "RFC 6570" in caught.value.reason


def test_template_error_is_a_value_error_with_fields_in_repr() -> None:
    error = TemplateError("demo://{", "unclosed '{' at position 7")
    assert isinstance(error, ValueError)
    assert repr(error) == ("TemplateError(template='demo://{', reason=\"unclosed '{' at position 7\")")
    assert str(error) == "URI template 'demo://{': unclosed '{' at position 7"


def test_variable_names_are_unique_in_order_of_first_appearance() -> None:
    template = UriTemplate("demo://{b}/{a}{?b,c}/x{#a}", matcher=never)
    assert template.variable_names == ("b", "a", "c")
    assert template.template == "demo://{b}/{a}{?b,c}/x{#a}"


# -- automatic matching ---------------------------------------------------------


def test_simple_template_matches_and_expands_back() -> None:
    template = UriTemplate("demo://users/{user_id}")
    assert template.is_simple
    assert template.match("demo://users/42") == {"user_id": "42"}
    assert template.expand({"user_id": "42"}) == "demo://users/42"


@pytest.mark.parametrize(
    "uri",
    [
        "demo://users/42/x",
        "demo://users/42?x=1",
        "demo://users/42#top",
        "xdemo://users/42",
        "demo://users",
        "demo://users/a,b",
        "demo://users/a b",
        "demo://users/a%2",
    ],
)
def test_simple_match_is_anchored_and_refuses_foreign_characters(uri: str) -> None:
    assert UriTemplate("demo://users/{user_id}").match(uri) is None


def test_empty_segment_matches_an_empty_value() -> None:
    template = UriTemplate("demo://users/{user_id}")
    assert template.match("demo://users/") == {"user_id": ""}
    assert template.expand({"user_id": ""}) == "demo://users/"


def test_value_with_encoded_reserved_characters_matches_decoded() -> None:
    template = UriTemplate("demo://users/{user_id}")
    assert template.match("demo://users/a%2Fb%3F%20c") == {"user_id": "a/b? c"}


def test_literal_suffix_after_a_variable_is_matched() -> None:
    template = UriTemplate("test://template/{id}/data")
    assert template.match("test://template/7/data") == {"id": "7"}
    assert template.match("test://template/7/other") is None
    assert template.match("test://template/7/data/") is None


def test_dot_in_value_before_a_literal_extension_is_kept() -> None:
    template = UriTemplate("files://{name}.json")
    assert template.is_simple
    assert template.match("files://report.v2.json") == {"name": "report.v2"}


def test_reserved_expansion_matches_slashes() -> None:
    template = UriTemplate("file:///{+path}")
    assert template.match("file:///etc/hosts") == {"path": "etc/hosts"}
    assert template.match("file:///a%20b/c") == {"path": "a b/c"}
    assert template.match("file:///") == {"path": ""}


def test_reserved_match_keeps_triplets_of_characters_expansion_keeps() -> None:
    # "{+path}" passes "%2F" through, so decoding it to "/" would expand to a
    # different URI; the triplet stays in the value instead.
    template = UriTemplate("file:///{+path}")
    assert template.match("file:///a%2Fb") == {"path": "a%2Fb"}
    assert template.match("file:///h%C3%A9") == {"path": "hé"}


def test_path_segment_expression_matches_one_segment() -> None:
    template = UriTemplate("demo://files{/segment}")
    assert template.is_simple
    assert template.match("demo://files/a") == {"segment": "a"}
    assert template.match("demo://files/") == {"segment": ""}
    assert template.match("demo://files") == {}
    assert template.match("demo://files/a/b") is None


def test_query_expression_matches_present_variables_in_template_order() -> None:
    template = UriTemplate("search://q{?q,lang}")
    assert template.is_simple
    assert template.match("search://q?q=mcp&lang=en") == {"q": "mcp", "lang": "en"}
    assert template.match("search://q?lang=en") == {"lang": "en"}
    assert template.match("search://q?q=") == {"q": ""}
    assert template.match("search://q") == {}
    assert template.match("search://q?q=a%20b") == {"q": "a b"}


@pytest.mark.parametrize(
    "uri",
    [
        "search://q?lang=en&q=mcp",
        "search://q&q=mcp",
        "search://q?q=mcp?lang=en",
        "search://q?q=mcp&page=2",
        "search://q?q",
    ],
)
def test_query_expression_refuses_what_expansion_cannot_produce(uri: str) -> None:
    assert UriTemplate("search://q{?q,lang}").match(uri) is None


def test_query_continuation_after_literal_query_matches() -> None:
    template = UriTemplate("api://items?sort=asc{&page}")
    assert template.match("api://items?sort=asc&page=2") == {"page": "2"}
    assert template.match("api://items?sort=asc") == {}
    assert template.match("api://items?sort=asc?page=2") is None


def test_separate_query_expressions_are_simple() -> None:
    template = UriTemplate("api://items{?q}{&lang}")
    assert template.is_simple
    assert template.match("api://items?q=a&lang=b") == {"q": "a", "lang": "b"}


@pytest.mark.parametrize(
    ("template", "uri", "expected"),
    [
        ("doc://x{#section}", "doc://x#intro/part", {"section": "intro/part"}),
        ("doc://x{#section}", "doc://x#", {"section": ""}),
        ("doc://x{#section}", "doc://x", {}),
        ("doc://report{.ext}", "doc://report.tar.gz", {"ext": "tar.gz"}),
        ("doc://report{.ext}", "doc://report", {}),
        ("doc://x{;id}", "doc://x;id=5", {"id": "5"}),
        ("doc://x{;id}", "doc://x;id", {"id": ""}),
        ("doc://x{;id}", "doc://x", {}),
        ("doc://x{;a}{;ab}", "doc://x;ab=1", {"ab": "1"}),
        ("doc://{a}/{b}", "doc://1/2", {"a": "1", "b": "2"}),
        ("doc://{a}{/b}/end", "doc://1/end", {"a": "1"}),
        ("doc://{a}{/b}/end", "doc://1/2/end", {"a": "1", "b": "2"}),
    ],
)
def test_every_single_variable_operator_matches(template: str, uri: str, expected: dict[str, str]) -> None:
    compiled = UriTemplate(template)
    assert compiled.is_simple
    assert compiled.match(uri) == expected


@pytest.mark.parametrize("uri", ["doc://x;id=", "doc://x;idx=1", "doc://x;id=a;b"])
def test_path_style_parameter_refuses_other_forms(uri: str) -> None:
    assert UriTemplate("doc://x{;id}").match(uri) is None


def test_repeated_variable_must_capture_the_same_value() -> None:
    template = UriTemplate("demo://{a}/x/{a}")
    assert template.match("demo://1/x/1") == {"a": "1"}
    assert template.match("demo://1/x/2") is None


def test_repeated_variable_must_appear_everywhere_it_expands() -> None:
    template = UriTemplate("demo://x{?a}/y{?a}")
    assert template.match("demo://x?a=1/y?a=1") == {"a": "1"}
    assert template.match("demo://x?a=1/y") is None


@pytest.mark.parametrize(
    ("template", "uri"),
    [
        ("demo://users/{id}", "demo://users/%FF"),
        ("demo://users/{id}", "demo://users/%C3"),
        ("demo://users/{id}", "demo://users/%C3%28"),
        ("demo://users/{id}", "demo://users/%ED%A0%80"),
        ("file:///{+path}", "file:///a/%FF"),
        ("file:///{+path}", "file:///%C3/b"),
        ("search://q{?q}", "search://q?q=%E2%82"),
    ],
)
def test_invalid_utf8_percent_encoding_does_not_match(template: str, uri: str) -> None:
    assert UriTemplate(template).match(uri) is None


@pytest.mark.parametrize(
    "uri",
    ["demo://users/h%c3%a9", "demo://users/%41", "demo://users/%2d"],
)
def test_non_canonical_percent_encoding_does_not_match(uri: str) -> None:
    # Verification compares with the expansion byte for byte: uppercase hex
    # and no encoding of unreserved characters.
    assert UriTemplate("demo://users/{id}").match(uri) is None


def test_template_without_variables_matches_only_itself() -> None:
    template = UriTemplate("demo://static")
    assert template.is_simple
    assert template.variable_names == ()
    assert template.match("demo://static") == {}
    assert template.match("demo://static/") is None


def test_long_uris_are_refused_without_catastrophic_backtracking() -> None:
    # Unambiguous templates keep one live parse per state and position;
    # these would hang an ambiguous pattern.
    assert UriTemplate("files://{name}.json").match("files://" + "a." * 50_000) is None
    query = UriTemplate("search://q{?q,lang}")
    assert query.match("search://q?q=" + "a" * 100_000 + "&") is None


# -- ambiguity ------------------------------------------------------------------


@pytest.mark.parametrize(
    "template",
    [
        "demo://{a}{b}",
        "demo://{first}-{last}",
        "demo://{a}.{b}",
        "file:///{+path}/{name}",
        "file:///{+path}{?rev}",
        "demo://files{/path*}",
        "demo://x{.labels*}",
        "demo://x{?filters*}",
        "demo://{var:3}",
        "demo://{x,y}",
        "demo://x{/a,b}",
        "demo://x{;a,b}",
        "demo://x{/a}{/b}",
        "demo://x{.a}{.b}",
        "demo://x{#a}{#b}",
        "demo://{a}{/b}-{c}",
        "demo://x{?q}{&q}",
    ],
)
def test_template_that_is_not_simple_needs_a_matcher(template: str) -> None:
    with pytest.raises(TemplateError) as caught:
        UriTemplate(template)
    assert caught.value.template == template
    assert "match(uri)" in caught.value.reason
    accepted = UriTemplate(template, matcher=never)
    assert not accepted.is_simple


def test_ambiguity_reason_names_the_expressions() -> None:
    with pytest.raises(TemplateError) as caught:
        UriTemplate("demo://{first}-{last}")
    assert "{first}" in caught.value.reason
    assert "{last}" in caught.value.reason


# -- custom matchers ------------------------------------------------------------


def split_name(uri: str) -> dict[str, str] | None:
    """Split demo://people/{first}-{last} at the first hyphen."""
    prefix = "demo://people/"
    if not uri.startswith(prefix) or "-" not in uri:
        return None
    first, last = uri[len(prefix) :].split("-", 1)
    return {"first": first, "last": last}


def test_custom_matcher_result_is_returned_when_it_expands_back() -> None:
    template = UriTemplate("demo://people/{first}-{last}", matcher=split_name)
    assert template.match("demo://people/ada-lovelace") == {
        "first": "ada",
        "last": "lovelace",
    }
    assert template.match("demo://other/ada-lovelace") is None


def test_custom_matcher_may_return_non_string_values_that_expand_back() -> None:
    def segments(uri: str) -> dict[str, list[str]] | None:
        prefix = "demo://files"
        if not uri.startswith(prefix + "/"):
            return None
        return {"path": uri[len(prefix) + 1 :].split("/")}

    template = UriTemplate("demo://files{/path*}", matcher=segments)
    assert template.match("demo://files/a/b") == {"path": ["a", "b"]}


def test_custom_matcher_wrong_result_is_discarded() -> None:
    template = UriTemplate(
        "demo://people/{first}-{last}",
        matcher=lambda uri: {"first": "grace", "last": "hopper"},
    )
    assert template.match("demo://people/ada-lovelace") is None


def test_custom_matcher_partial_match_is_discarded() -> None:
    template = UriTemplate("demo://users/{user_id}", matcher=lambda uri: {"user_id": "42"})
    assert template.match("demo://users/42") == {"user_id": "42"}
    assert template.match("demo://users/42/extra") is None


@pytest.mark.parametrize(
    "result",
    [{"first": "ada", "last": "lovelace", "extra": "x"}, {1: "ada"}],
    ids=["extra-key", "non-string-key"],
)
def test_custom_matcher_unknown_keys_are_discarded(result: dict[Any, str]) -> None:
    template = UriTemplate("demo://people/{first}-{last}", matcher=lambda uri: result)
    assert template.match("demo://people/ada-lovelace") is None


def test_custom_matcher_inconsistent_repeats_are_discarded() -> None:
    template = UriTemplate("demo://{a}-{a}", matcher=lambda uri: {"a": "1"})
    assert template.match("demo://1-1") == {"a": "1"}
    assert template.match("demo://1-2") is None


def test_custom_matcher_returning_none_matches_nothing() -> None:
    template = UriTemplate("demo://{a}{b}", matcher=never)
    assert template.match("demo://xy") is None


def test_custom_matcher_is_used_even_for_a_simple_template() -> None:
    template = UriTemplate("demo://users/{user_id}", matcher=never)
    assert template.is_simple
    assert template.match("demo://users/42") is None


def test_custom_matcher_returning_a_non_mapping_raises_type_error() -> None:
    def as_list(uri: str) -> Any:
        return ["x", "y"]

    template = UriTemplate("demo://{a}{b}", matcher=as_list)
    with pytest.raises(TypeError, match="expected a mapping"):
        template.match("demo://xy")


def test_custom_matcher_exceptions_propagate() -> None:
    def broken(uri: str) -> Mapping[str, Any] | None:
        raise LookupError("boom")

    template = UriTemplate("demo://{a}{b}", matcher=broken)
    with pytest.raises(LookupError, match="boom"):
        template.match("demo://xy")


def test_async_matcher_is_refused() -> None:
    async def matcher(uri: str) -> Mapping[str, Any] | None:
        return None

    with pytest.raises(TypeError, match="synchronous"):
        UriTemplate("demo://{a}{b}", matcher=matcher)  # type: ignore[arg-type]


# -- public surface -------------------------------------------------------------


def test_public_names_are_exported() -> None:
    assert sorted(templates.__all__) == ["TemplateError", "UriTemplate"]


def test_repr_shows_the_template() -> None:
    assert repr(UriTemplate("demo://users/{id}")) == "UriTemplate('demo://users/{id}')"
