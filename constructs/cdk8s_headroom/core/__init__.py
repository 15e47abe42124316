"""The base every construct of the library stands on, below ``karpenter`` and ``objects``.

``construct`` holds ``HeadroomConstruct`` (the judged constructor, the checks attached to
the app's root), ``rendered`` the ``RenderedApiObject`` every emitted object is,
``app_checks`` the whole-app checks and what they ask of each construct, ``synthesis``
``synth`` and the publication of a synthesized folder. Nothing here knows a construct
class: the constructs above answer ``AppMember``'s questions.
"""
